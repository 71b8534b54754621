import Foundation

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSLDigest)
import COpenSSLDigest
#endif

/// A single-use raw nonce from `POST /auth/apple/nonce`. Apple gets `hashed` (`request.nonce`), passkeyd gets `raw`
/// back with the identity token (in `AppleSignInExchange`): Apple puts what it was given in the token, passkeyd
/// hashes the raw nonce again and compares.
public struct AppleSignInNonce: Codable, Sendable, Equatable {
    /// The raw nonce: never give it to Apple.
    public let raw: String
    public let expiresAt: Date

    public init(raw: String, expiresAt: Date) {
        self.raw = raw
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey {
        case raw = "nonce"
        case expiresAt
    }

    /// The lowercase hex SHA-256 of `raw`: what `ASAuthorizationAppleIDRequest.nonce` takes.
    public var hashed: String {
        Self.sha256(Data(raw.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// SHA-256 from CryptoKit on Apple platforms, from the system's OpenSSL elsewhere.
    static func sha256(_ data: Data) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: data))
        #else
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = [UInt8](data)
        _ = bytes.withUnsafeBufferPointer { input in SHA256(input.baseAddress, input.count, &digest) }
        return digest
        #endif
    }
}
