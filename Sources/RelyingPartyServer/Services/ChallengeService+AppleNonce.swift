import CryptoCore
import Foundation
import Storage

extension ChallengeService {
    /// A new raw Sign in with Apple nonce (32 random bytes, base64url), stored under its SHA-256 until it expires.
    func issueAppleNonce() throws(ServerError) -> (rawNonce: String, expiresAt: Date) {
        let now = time.now
        purge.purgeIfDue(now: now)
        let rawNonce = Base64URL.encode(random.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(lifetime)
        do {
            try store.insertChallenge(
                ChallengeRecord(
                    challenge: Self.appleNonceKey(rawNonce),
                    ceremony: .appleNonce,
                    userID: nil,
                    userVerification: "",
                    context: [],
                    expiresAt: expiresAt
                )
            )
        } catch {
            throw .storage(error)
        }
        return (rawNonce, expiresAt)
    }

    /// The key a raw nonce is stored and remembered under: SHA-256 of its UTF-8 bytes.
    static func appleNonceKey(_ rawNonce: String) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array(rawNonce.utf8))
    }
}
