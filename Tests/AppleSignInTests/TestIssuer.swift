import AppleSignIn
import CryptoCore
import Foundation
import TestSupport

/// Plays Apple in the tests: RSA keys generated at test time, their JWKS, and tokens signed like Apple's.
struct TestIssuer: Sendable {
    /// One pair of keys per test process: RSA generation is slow and the keys are never modified.
    static let shared: TestIssuer = {
        do {
            return try TestIssuer()
        } catch {
            fatalError("test RSA keys could not be generated: \(error)")
        }
    }()

    /// The verification instant of every synthetic test: 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let bundleID = "com.example.passkeyd"
    static let servicesID = "com.example.passkeyd.web"
    static let rawNonce = "2d1c6a0e-raw-nonce"
    static let primaryKeyID = "TESTKEY001"
    static let secondaryKeyID = "TESTKEY002"

    let primary: PrivateKey
    let secondary: PrivateKey
    /// A key absent from the JWKS.
    let outsider: PrivateKey

    init() throws {
        primary = try PrivateKey.generateRSA(bits: 2048)
        secondary = try PrivateKey.generateRSA(bits: 2048)
        outsider = try PrivateKey.generateRSA(bits: 2048)
    }

    /// The JWK member object of an RSA public key, as Apple publishes it.
    static func jwk(_ key: PrivateKey, id: String) throws -> [String: Any] {
        let components = try key.publicKey().rsaComponents()
        return [
            "kty": "RSA", "kid": id, "use": "sig", "alg": "RS256",
            "n": Base64URL.encode(components.modulus), "e": Base64URL.encode(components.exponent),
        ]
    }

    /// Apple-style JWKS text with the primary and secondary keys.
    func jwksJSON() throws -> [UInt8] {
        try Self.json(["keys": [Self.jwk(primary, id: Self.primaryKeyID), Self.jwk(secondary, id: Self.secondaryKeyID)]])
    }

    func keySet() throws -> JSONWebKeySet {
        try JSONWebKeySet(json: jwksJSON())
    }

    /// A verifier for the bundle ID and the Services ID at `now`.
    static func verifier(audiences: [String] = [bundleID, servicesID], at time: Date = now) -> IdentityTokenVerifier {
        IdentityTokenVerifier(audiences: audiences, time: FixedTime(time))
    }

    /// Lowercase hex SHA-256 of the raw nonce, as Apple's sample code sends it.
    static func hashedNonce(_ raw: String) -> String {
        JWSTestSigner.hashedNonce(raw)
    }

    /// The claims of a valid identity token at `now`, as Apple sends them.
    static func identityClaims() -> [String: Any] {
        let now = Int(Self.now.timeIntervalSince1970)
        return [
            "iss": "https://appleid.apple.com", "aud": bundleID, "exp": now + 600, "iat": now,
            "sub": "001234.0123456789abcdef0123456789abcdef.0001", "nonce": hashedNonce(rawNonce), "c_hash": "q5kKwHk8aR4x0zF6V1nK7g",
            "email": "user@privaterelay.appleid.com", "email_verified": true, "is_private_email": true,
            "auth_time": now, "nonce_supported": true, "real_user_status": 2,
        ]
    }

    /// A token with `claims` (nil values remove the claim), signed with RS256 by `key` and naming `keyID`.
    func token(editing edit: (inout [String: Any]) -> Void = { _ in }, header: [String: Any]? = nil, key: PrivateKey? = nil) throws -> String {
        var claims = Self.identityClaims()
        edit(&claims)
        return try sign(claims: claims, header: header ?? ["kid": Self.primaryKeyID, "alg": "RS256"], key: key ?? primary)
    }

    /// Signs any claims object with RS256 under any header.
    func sign(claims: [String: Any], header: [String: Any], key: PrivateKey) throws -> String {
        try JWSTestSigner.sign(claims: claims, header: header, key: key)
    }

    /// Compact JSON text of a JSON object.
    static func json(_ object: Any) throws -> [UInt8] {
        try JWSTestSigner.json(object)
    }

    /// The JSON value of a fragment such as `true` or `"true"`.
    static func fragment(_ json: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    }

    /// The three parts of a token, rewritten by `edit`.
    static func editParts(_ token: String, _ edit: (inout [String]) -> Void) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        edit(&parts)
        return parts.joined(separator: ".")
    }
}
