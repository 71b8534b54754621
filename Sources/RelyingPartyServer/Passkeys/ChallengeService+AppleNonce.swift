import CryptoCore
import Foundation
import HTTPEdge
import Storage

extension ChallengeService {
    /// A new raw Sign in with Apple nonce (32 random bytes, base64url), stored under its SHA-256 until it expires.
    func issueAppleNonce() throws(ServerError) -> (rawNonce: String, expiresAt: Date) {
        let issued = try issueSecret(.appleNonce, userID: nil, context: [], lifetime: lifetime, key: Self.appleNonceKey)
        return (issued.code, issued.expiresAt)
    }

    /// The key a raw nonce is stored and remembered under: SHA-256 of its UTF-8 bytes.
    static func appleNonceKey(_ rawNonce: String) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array(rawNonce.utf8))
    }
}
