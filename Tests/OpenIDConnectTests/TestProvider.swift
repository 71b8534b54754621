import CryptoCore
import Foundation
import OpenIDConnect
import TestSupport

/// Plays an OpenID provider shaped like Google in the tests: an RSA and a P-256 key made at test time, their JWKS,
/// and ID tokens with Google's claims.
struct TestProvider: Sendable {
    static let shared: TestProvider = {
        do {
            return try TestProvider()
        } catch {
            fatalError("test keys could not be generated: \(error)")
        }
    }()

    /// The verification instant of every test: 2026-01-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)
    static let webClientID = "1234-web.apps.googleusercontent.com"
    static let androidClientID = "1234-android.apps.googleusercontent.com"
    static let iosClientID = "1234-ios.apps.googleusercontent.com"
    static let rawNonce = "b6f0c1d2-raw-nonce"
    static let subject = "110169484474386276334"

    let rsa: JWSSigningKey
    let ec: JWSSigningKey
    /// A key absent from the JWKS, under the RSA key's kid.
    let outsider: JWSSigningKey

    init() throws {
        rsa = try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 2048), algorithm: .rs256, keyID: "rsa-key-1")
        ec = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: "ec-key-1")
        outsider = try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 2048), algorithm: .rs256, keyID: "rsa-key-1")
    }

    /// JWKS text with both keys, as Google publishes them (`kid`, `alg`, `use`).
    func jwksJSON() throws -> [UInt8] {
        let keys = try [rsa.jwk(), ec.jwk()]
        return Array(try JSONEncoder().encode(["keys": keys]))
    }

    func keySet() throws -> IssuerKeySet {
        try IssuerKeySet(json: jwksJSON())
    }

    static func hashedNonce(_ raw: String) -> String {
        JWSTestSigner.hashedNonce(raw)
    }

    /// Google's claims for an Android sign-in at `now`: `aud` the web client, `azp` the Android client.
    static func googleClaims() -> [String: Any] {
        let now = Int(Self.now.timeIntervalSince1970)
        return [
            "iss": "https://accounts.google.com", "azp": androidClientID, "aud": webClientID, "sub": subject,
            "email": "person@example.com", "email_verified": true, "nonce": hashedNonce(rawNonce),
            "iat": now, "exp": now + 3600, "name": "A Person",
        ]
    }

    /// A token with the claims edited by `edit`, signed by `key` (the RSA key by default).
    func token(key: JWSSigningKey? = nil, editing edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        var claims = Self.googleClaims()
        edit(&claims)
        return try CompactJWS.sign(payload: JWSTestSigner.json(claims), type: "JWT", with: key ?? rsa)
    }

    /// Parts signed under any header with RS256 (or unsigned, for `none`).
    static func token(header: [String: Any], claims: [String: Any], signature: [UInt8]) throws -> String {
        Base64URL.encode(try JWSTestSigner.json(header)) + "." + Base64URL.encode(try JWSTestSigner.json(claims)) + "."
            + Base64URL.encode(signature)
    }

    static func verifier(
        issuer: IssuerIdentifier = .google,
        clientIDs: [String] = [webClientID, androidClientID, iosClientID],
        at time: Date = now
    ) -> IDTokenVerifier {
        IDTokenVerifier(issuer: issuer, clientIDs: clientIDs, time: FixedTime(time))
    }
}
