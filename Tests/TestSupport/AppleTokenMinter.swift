import CryptoCore
import Foundation

/// Signs identity tokens and notifications the way Apple does (RS256 compact JWS), with any header and claims.
public enum AppleTokenMinter {
    public static let bundleID = "com.example.passkeyd"
    public static let servicesID = "com.example.passkeyd.web"
    public static let subject = "001234.0123456789abcdef0123456789abcdef.0001"
    public static let email = "x7k2q9@privaterelay.appleid.com"

    /// Lowercase hex SHA-256 of the raw nonce: what the app passes to Apple.
    public static func hashedNonce(_ raw: String) -> String {
        JWSTestSigner.hashedNonce(raw)
    }

    /// The claims of a valid identity token issued at `now` for `rawNonce`, with Apple's string booleans.
    public static func identityClaims(now: Date, rawNonce: String, subject: String = subject, audience: String = bundleID) -> [String: Any] {
        let seconds = Int(now.timeIntervalSince1970)
        return [
            "iss": "https://appleid.apple.com", "aud": audience, "exp": seconds + 600, "iat": seconds, "sub": subject,
            "nonce": hashedNonce(rawNonce), "nonce_supported": true, "email": email, "email_verified": "true",
            "is_private_email": "true", "real_user_status": 2, "auth_time": seconds, "c_hash": "q5kKwHk8aR4x0zF6V1nK7g",
        ]
    }

    /// The claims of a notification carrying `event`.
    public static func notificationClaims(now: Date, event: [String: Any]) throws -> [String: Any] {
        let seconds = Int(now.timeIntervalSince1970)
        let events = String(decoding: try json(event), as: UTF8.self)
        return [
            "iss": "https://appleid.apple.com", "aud": bundleID, "iat": seconds, "exp": seconds + 600,
            "jti": Base64URL.encode(SystemRandom().bytes(count: 12)), "events": events,
        ]
    }

    /// An RS256 compact JWS of `claims` by `key`, naming `keyID`.
    public static func sign(_ claims: [String: Any], keyID: String = AppleTestKeys.primaryKeyID, key: PrivateKey? = nil) throws -> String {
        try sign(claims, header: ["alg": "RS256", "kid": keyID], key: key ?? AppleTestKeys.key(id: keyID))
    }

    public static func sign(_ claims: [String: Any], header: [String: Any], key: PrivateKey) throws -> String {
        try JWSTestSigner.sign(claims: claims, header: header, key: key)
    }

    /// A token with `alg` HS256, MACed with the public key (its SubjectPublicKeyInfo) as the HMAC secret: the
    /// algorithm-confusion forgery.
    public static func hmacForgery(_ claims: [String: Any]) throws -> String {
        let input = Base64URL.encode(try json(["alg": "HS256", "kid": AppleTestKeys.primaryKeyID])) + "." + Base64URL.encode(try json(claims))
        let secret = try AppleTestKeys.shared.primary.publicKey().subjectPublicKeyInfo
        return input + "." + Base64URL.encode(hmacSHA256(key: secret, message: Array(input.utf8)))
    }

    /// HMAC-SHA256 (RFC 2104), only to build the forgery above.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? DigestAlgorithm.sha256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = DigestAlgorithm.sha256.hash(block.map { $0 ^ 0x36 } + message)
        return DigestAlgorithm.sha256.hash(block.map { $0 ^ 0x5C } + inner)
    }

    public static func json(_ object: Any) throws -> [UInt8] {
        try JWSTestSigner.json(object)
    }
}
