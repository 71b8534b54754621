import AccessTokens
import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing

/// An app's own API verifying passkeyd's access tokens with PyJWT against the served JWKS (`Tests/Python/backend`), exactly
/// as docs/get-started/your-api.md tells it to: valid, expired, wrong audience, wrong issuer, signed by a retired key
/// still published, signed by a key removed after its tokens expired, and forged `alg` (none, HS256 keyed with the
/// public key); and the page's own PyJWT example, run as written, gives every token the same verdict. The server runs
/// in process behind the real HTTPS listener, its clock set back to mint tokens in the past.
@Suite(.serialized) struct PyJWTBackendTests {
    /// The backend's Python, in the venv `make backend-deps` makes.
    static func python() throws -> String {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let python = repository + "/.venv-backend/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else { throw TransportFailure("\(python) is missing: run make backend-deps") }
        return python
    }

    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        + "/Python/backend/verify_tokens.py"

    /// The backend's verdict on each token, against the JWKS `server` serves now.
    static func verdicts(
        _ tokens: [String: String],
        port: Int,
        issuer: String = "https://example.com",
        audience: String = "example.com",
        documented: Bool = false
    )
        throws -> (verdicts: [String: String], claims: [String: [String: Any]])
    {
        var request: [String: Any] = [
            "jwks_url": "https://127.0.0.1:\(port)/.well-known/jwks.json", "issuer": issuer, "audience": audience, "tokens": tokens,
        ]
        if documented { request["documented"] = DocumentationPage.repository.path + "/docs/get-started/your-api.md" }
        let result = try ChildProcess.run(try python(), [script], input: try JSONSerialization.data(withJSONObject: request))
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: result.output) as? [String: Any] else {
            throw TransportFailure("the backend failed: \(result.errorOutput)")
        }
        return (object.compactMapValues { $0 as? String }, object["claims"] as? [String: [String: Any]] ?? [:])
    }

    @Test func theBackendAcceptsExactlyTheLiveTokensOfPublishedKeys() throws {
        let realNow = Date()
        // The clock starts 40 days back, so that tokens signed then are long expired and the first key long retired.
        let clock = ManualClock(realNow.addingTimeInterval(-40 * 86_400))
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null, "sessions": {"lifetimeSeconds": 31536000}}"#
        )
        let store = InMemoryStore()
        let server = try LoopbackServer(store: store, configuration: configuration, clock: clock)
        defer { server.stop() }
        let client = PasskeyClient(CurlTransport(port: server.port))
        let account = try client.register("tess")
        let mint = { () throws -> String in
            let reply = try client.send("POST", "/session/token", headers: PasskeyClient.bearer(account.token))
            guard let token = reply.object["accessToken"] as? String else { throw TransportFailure("mint: \(reply.text)") }
            return token
        }
        // Key A signs a token 40 days back (long expired; A is later removed). 30 days on, key B is made and signs
        // from 900 s later; 15 minutes before now, key C is made by hand and signs at once: B retires and stays
        // published until its last token expires.
        let removedKeysToken = try mint()
        clock.advance(by: 30 * 86_400)
        #expect(server.handler.processDueKeyWork())
        clock.advance(by: 900)
        let keyBToken = try mint()
        clock.advance(by: 10 * 86_400 - 900 - 600)
        let retiredButPublished = try mint()
        #expect(try DecodedToken(retiredButPublished).keyID == (try DecodedToken(keyBToken).keyID))
        let schedule = SigningKeySchedule(settings: configuration.tokens, vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        _ = try schedule.rotate(store: store, now: clock.now, immediately: true)
        #expect(server.handler.processDueKeyWork())
        clock.advance(by: 600)
        #expect(server.handler.processDueKeyWork())
        let valid = try mint()
        let decodedValid = try DecodedToken(valid)
        #expect(decodedValid.keyID != (try DecodedToken(keyBToken).keyID))
        var none = decodedValid.header
        none["alg"] = "none"
        var hmac = decodedValid.header
        hmac["alg"] = "HS256"
        let jwk = try #require(
            try JSONSerialization.jsonObject(with: Data(try client.send("GET", "/.well-known/jwks.json").body)) as? [String: [[String: Any]]]
        )
        let publicJWK = try JSONSerialization.data(withJSONObject: try #require(jwk["keys"]?.first { $0["kid"] as? String == decodedValid.keyID }))
        let hmacSigningInput = try DecodedToken.forge(header: hmac, claims: decodedValid.claims, signature: "").dropLast()
        // The attacker's HMAC, keyed with the published JWK's text, by OpenSSL's command line.
        let hmac256 = try ChildProcess.run(
            "/usr/bin/openssl",
            ["dgst", "-sha256", "-binary", "-mac", "HMAC", "-macopt", "key:" + String(decoding: publicJWK, as: UTF8.self)],
            input: Data(hmacSigningInput.utf8)
        )
        #expect(hmac256.status == 0 && hmac256.output.count == 32, "\(hmac256.errorOutput)")
        let hmacSignature = Base64URL.encode(Array(hmac256.output))

        let tokens = [
            "valid": valid,
            "retired but published": retiredButPublished,
            "expired": keyBToken,
            "removed key": removedKeysToken,
            "alg none": try DecodedToken.forge(header: none, claims: decodedValid.claims, signature: ""),
            "HS256 with the public key": String(hmacSigningInput) + "." + hmacSignature,
        ]
        let (verdicts, claims) = try Self.verdicts(tokens, port: server.port)
        #expect(verdicts["valid"] == "ok", "\(verdicts)")
        #expect(verdicts["retired but published"] == "ok", "\(verdicts)")
        #expect(verdicts["expired"]?.hasPrefix("ExpiredSignatureError") == true, "\(verdicts)")
        #expect(verdicts["removed key"]?.hasPrefix("PyJWKClientError") == true, "\(verdicts)")
        #expect(verdicts["alg none"]?.hasPrefix("InvalidAlgorithmError") == true, "\(verdicts)")
        #expect(verdicts["HS256 with the public key"]?.hasPrefix("InvalidAlgorithmError") == true, "\(verdicts)")
        #expect(claims["valid"]?["sub"] as? String == Base64URL.encode(account.userID))
        #expect(claims["valid"]?["username"] as? String == "tess")

        let wrongAudience = try Self.verdicts(["token": valid], port: server.port, audience: "another-app").verdicts
        #expect(wrongAudience["token"]?.hasPrefix("InvalidAudienceError") == true, "\(wrongAudience)")
        let wrongIssuer = try Self.verdicts(["token": valid], port: server.port, issuer: "https://evil.example").verdicts
        #expect(wrongIssuer["token"]?.hasPrefix("InvalidIssuerError") == true, "\(wrongIssuer)")

        // The documentation's example, as written: the same verdict (the exception's class) for every token.
        let documented = try Self.verdicts(tokens, port: server.port, documented: true)
        for (name, verdict) in verdicts where name != "claims" {
            let kind = { (text: String?) in text?.split(separator: ":").first.map(String.init) }
            #expect(
                kind(documented.verdicts[name]) == kind(verdict),
                "docs/get-started/your-api.md's PyJWT example on \(name): \(documented.verdicts)"
            )
        }
        #expect(documented.claims["valid"]?["sub"] as? String == Base64URL.encode(account.userID))
        let documentedAudience = try Self.verdicts(["token": valid], port: server.port, audience: "another-app", documented: true).verdicts
        #expect(documentedAudience["token"]?.hasPrefix("InvalidAudienceError") == true, "\(documentedAudience)")
    }
}
