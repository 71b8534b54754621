import CryptoCore
import Foundation

/// Compact JWS test tokens signed the way Apple signs identity tokens and notifications (RS256), shared by the
/// AppleSignIn and server tests.
public enum JWSTestSigner {
    /// Compact JSON text of a JSON object, keys sorted.
    public static func json(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// An RS256 compact JWS of `claims` under `header`, signed by `key`.
    public static func sign(claims: [String: Any], header: [String: Any], key: PrivateKey) throws -> String {
        let input = Base64URL.encode(try json(header)) + "." + Base64URL.encode(try json(claims))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8), algorithm: .rsaPKCS1SHA256))
    }

    /// Lowercase hex SHA-256 of a raw nonce, as Apple's sample code passes it to Apple.
    public static func hashedNonce(_ raw: String) -> String {
        DigestAlgorithm.sha256.hash(Array(raw.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
