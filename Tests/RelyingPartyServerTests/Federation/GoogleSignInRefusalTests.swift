import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Every refusal of native sign-in with an OpenID provider, through the server against the Google-shaped stand-in:
/// each a stable code, none a 500, none waiting on the provider.
@Suite struct GoogleSignInRefusalTests {
    /// The status and error code of signing in with the token `edit` makes from a valid one.
    private func refusal(
        _ fixture: GoogleFixture,
        key: JWSSigningKey? = nil,
        rawNonce: String? = nil,
        edit: (inout [String: Any]) -> Void = { _ in }
    ) throws -> (Int, String?) {
        let raw = GoogleFixture.rawNonce()
        let reply = try fixture.signIn(idToken: try fixture.idToken(rawNonce: raw, key: key, edit: edit), rawNonce: rawNonce ?? raw)
        return (reply.status, reply.object["error"] as? String)
    }

    private func loggedRule(_ fixture: GoogleFixture, _ code: String) -> Bool {
        fixture.log.contains { $0.contains("identity sign-in refused (google): \(code)") }
    }

    @Test func everyTokenRuleIsA401WithTheRuleInTheLog() throws {
        let fixture = try GoogleFixture()
        let now = Int(fixture.clock.now.timeIntervalSince1970)
        let outsider = try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 2048), algorithm: .rs256, keyID: "google-rsa-1")
        let cases: [(String, JWSSigningKey?, String?, (inout [String: Any]) -> Void)] = [
            ("idToken.invalidSignature", outsider, nil, { _ in }),
            (
                "idToken.expired", nil, nil,
                {
                    $0["iat"] = now - 7200
                    $0["exp"] = now - 3600
                }
            ),
            (
                "idToken.issuedInFuture", nil, nil,
                {
                    $0["iat"] = now + 600
                    $0["exp"] = now + 3600
                }
            ),
            ("idToken.wrongIssuer", nil, nil, { $0["iss"] = "https://accounts.example.com" }),
            ("idToken.wrongAudience", nil, nil, { $0["aud"] = "someone-else.apps.googleusercontent.com" }),
            ("idToken.wrongAuthorizedParty", nil, nil, { $0["azp"] = "someone-else.apps.googleusercontent.com" }),
            ("idToken.missingNonce", nil, nil, { $0["nonce"] = nil }),
            ("idToken.nonceMismatch", nil, "another-raw-nonce", { _ in }),
            ("idToken.invalidSubject", nil, nil, { $0["sub"] = "" }),
        ]
        for (code, key, rawNonce, edit) in cases {
            let (status, error) = try refusal(fixture, key: key, rawNonce: rawNonce, edit: edit)
            #expect(status == 401, "\(code)")
            #expect(error == "invalid_identity_token", "\(code)")
            #expect(loggedRule(fixture, code), "\(code) in the log")
        }
        #expect(
            try fixture.store.transaction { transaction throws(StorageError) in
                try transaction.federatedIdentity(issuer: GoogleStandIn.issuer, subject: "110169484474386276334")
            } == nil
        )
    }

    @Test func algNoneAndHS256AreRefused() throws {
        let fixture = try GoogleFixture()
        let raw = GoogleFixture.rawNonce()
        let claims = GoogleStandIn.claims(now: fixture.clock.now, rawNonce: raw, subject: "1")
        let payload = Base64URL.encode(try JWSTestSigner.json(claims))
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"google-rsa-1"}"#.utf8)) + "." + payload + "."
        let hs256Input = Base64URL.encode(Array(#"{"alg":"HS256","kid":"google-rsa-1"}"#.utf8)) + "." + payload
        let mac = MessageAuthenticationKey(key: try fixture.standIn.rsa.publicKey.rsaComponents().modulus).authenticate(Array(hs256Input.utf8))
        for token in [none, hs256Input + "." + Base64URL.encode(mac)] {
            let reply = try fixture.signIn(idToken: token, rawNonce: raw)
            #expect(reply.status == 401)
            #expect(reply.object["error"] as? String == "invalid_identity_token")
        }
        #expect(loggedRule(fixture, "idToken.unsupportedAlgorithm"))
    }

    @Test func aReplayedTokenOrNonceIsRefused() throws {
        let fixture = try GoogleFixture()
        let raw = GoogleFixture.rawNonce()
        let token = try fixture.idToken(rawNonce: raw)
        #expect(try fixture.signIn(idToken: token, rawNonce: raw).status == 200)
        let replayed = try fixture.signIn(idToken: token, rawNonce: raw)
        #expect(replayed.status == 401)
        #expect(replayed.object["error"] as? String == "invalid_identity_token")
        // Another token with the same nonce (a new iat) is a replay of the nonce.
        fixture.clock.advance(by: 1)
        let sameNonce = try fixture.signIn(idToken: try fixture.idToken(rawNonce: raw), rawNonce: raw)
        #expect(sameNonce.status == 401)
        #expect(fixture.log.contains { $0.contains("already used") })
    }

    @Test func aServerIssuedNonceIsTakenOnceAndAnExpiredOneRefused() throws {
        let fixture = try GoogleFixture()
        let issued = try fixture.client.send("POST", "/auth/google/nonce")
        #expect(issued.status == 200)
        let raw = try #require(issued.object["nonce"] as? String)
        #expect(try fixture.signIn(idToken: try fixture.idToken(rawNonce: raw), rawNonce: raw).status == 200)
        let late = try #require(try fixture.client.send("POST", "/auth/google/nonce").object["nonce"] as? String)
        fixture.clock.advance(by: 3600)
        let expired = try fixture.signIn(idToken: try fixture.idToken(rawNonce: late), rawNonce: late)
        #expect(expired.status == 401)
        #expect(try fixture.client.send("POST", "/auth/nobody/nonce").status == 404)
    }

    @Test func badRequestsAreClientErrors() throws {
        let fixture = try GoogleFixture()
        let unknown = try fixture.signIn(idToken: "x.y.z", rawNonce: "n", provider: "nobody")
        #expect(unknown.status == 404)
        #expect(unknown.object["error"] as? String == "identity_provider_not_found")
        for body in [#"{}"#, #"{"idToken": 5, "rawNonce": "n"}"#, #"{"idToken": "x.y.z", "rawNonce": ""}"#, "not json"] {
            let reply = try fixture.client.send("POST", "/auth/google", json: Array(body.utf8))
            #expect(reply.status == 400, "\(body)")
        }
        let long = try fixture.signIn(idToken: "x.y.z", rawNonce: String(repeating: "n", count: 513))
        #expect(long.status == 400)
        let garbage = try fixture.signIn(idToken: "not a token", rawNonce: "n")
        #expect(garbage.status == 401)
        #expect(loggedRule(fixture, "idToken.malformed"))
    }

    @Test func anUnknownKidRefreshesTheKeysOnceAMinute() throws {
        let fixture = try GoogleFixture()
        let raw = GoogleFixture.rawNonce()
        let token = try fixture.idToken(rawNonce: raw, key: fixture.standIn.rotated)
        fixture.standIn.publishRotatedKey()
        let fetched = fixture.server.identityProviderKeyStatus("google").completedFetches
        // Within a minute of the last fetch, an unknown kid starts none: the token is refused.
        #expect(try fixture.signIn(idToken: token, rawNonce: raw).status == 401)
        #expect(fixture.server.identityProviderKeyStatus("google").completedFetches == fetched)
        // A minute on, the first sight of the rotated kid starts a refresh and is 503; its retry meets the new key.
        fixture.clock.advance(by: 61)
        let first = try fixture.signIn(idToken: token, rawNonce: raw)
        #expect(first.status == 503)
        #expect(first.object["error"] as? String == "identity_provider_unavailable")
        try fixture.awaitKeyFetches(fetched + 1)
        #expect(try fixture.signIn(idToken: token, rawNonce: raw).status == 200)
        // A kid no key has: one refresh, then within the minute a plain refusal, no further fetch.
        let stranger = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: "nobody")
        fixture.clock.advance(by: 61)
        #expect(try refusal(fixture, key: stranger).0 == 503)
        try fixture.awaitKeyFetches(fetched + 2)
        let requests = fixture.standIn.requests.count
        #expect(try refusal(fixture, key: stranger) == (401, "invalid_identity_token"))
        #expect(fixture.standIn.requests.count == requests)
    }

    @Test func aDiscoveryDocumentOfAnotherIssuerOrGarbageKeysGive503() throws {
        for mode in [GoogleStandIn.Mode.wrongIssuer, .garbageKeys, .unavailable] {
            let standInFixture = try GoogleFixture(prefetchKeys: false)
            standInFixture.standIn.mode = mode
            try standInFixture.fetchKeys()
            let (status, error) = try refusal(standInFixture)
            #expect(status == 503, "\(mode)")
            #expect(error == "identity_provider_unavailable", "\(mode)")
            #expect(standInFixture.log.contains { $0.hasPrefix("identity provider google: fetch failed") }, "\(mode)")
        }
    }

    @Test func aStalledDiscoveryEndpointGives503Fast() throws {
        let silent = try SilentListener()
        let fixture = try GoogleFixture(discoveryURL: "http://127.0.0.1:\(silent.port)/.well-known/openid-configuration", prefetchKeys: false)
        for _ in 0..<3 {
            let started = Date()
            let (status, _) = try refusal(fixture)
            #expect(status == 503)
            #expect(Date().timeIntervalSince(started) < 1.0, "a request needing keys fails fast")
        }
        #expect(try fixture.client.send("GET", "/healthz").status == 200)
    }
}
