import CryptoCore
import Foundation
import TestSupport
import Testing

@Suite("POST /auth/apple: identity token rules")
struct AppleIdentityTokenTests {
    /// A token rewritten to break one rule, for `raw`, at the fixture's time.
    struct Rejection: Sendable, CustomStringConvertible {
        let description: String
        let token: @Sendable (AppleFixture, String) throws -> String
    }

    static func edited(_ name: String, _ edit: @escaping @Sendable (inout [String: Any], Date) -> Void) -> Rejection {
        Rejection(description: name) { fixture, raw in
            let now = fixture.clock.now
            return try fixture.identityToken(rawNonce: raw) { edit(&$0, now) }
        }
    }

    static let rejections: [Rejection] = [
        edited("wrong issuer") { claims, _ in claims["iss"] = "https://appleid.example.com" },
        edited("wrong audience") { claims, _ in claims["aud"] = "com.example.other" },
        edited("expired") { claims, now in
            claims["iat"] = Int(now.timeIntervalSince1970) - 1000
            claims["exp"] = Int(now.timeIntervalSince1970) - 300
        },
        edited("issued in the future") { claims, now in claims["iat"] = Int(now.timeIntervalSince1970) + 600 },
        edited("missing nonce") { claims, _ in claims["nonce"] = nil },
        edited("nonce of another raw value") { claims, _ in claims["nonce"] = AppleTokenMinter.hashedNonce("another raw nonce") },
        edited("raw nonce instead of its hash") { claims, _ in claims["nonce"] = "raw" },
        edited("no subject") { claims, _ in claims["sub"] = nil },
        Rejection(description: "bad signature (a key Apple never published, under Apple's kid)") { fixture, raw in
            try AppleTokenMinter.sign(
                AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: raw),
                keyID: AppleTestKeys.primaryKeyID,
                key: AppleTestKeys.shared.outsider
            )
        },
        Rejection(description: "signature bytes altered") { fixture, raw in
            let token = try fixture.identityToken(rawNonce: raw)
            return String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        },
        Rejection(description: "unknown kid") { fixture, raw in
            try AppleTokenMinter.sign(
                AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: raw),
                keyID: "NOTPUBLISH",
                key: AppleTestKeys.shared.outsider
            )
        },
        Rejection(description: "alg none") { fixture, raw in
            let claims = AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: raw)
            return Base64URL.encode(try AppleTokenMinter.json(["alg": "none", "kid": AppleTestKeys.primaryKeyID])) + "."
                + Base64URL.encode(try AppleTokenMinter.json(claims)) + "."
        },
        Rejection(description: "HS256 with the public key as secret") { fixture, raw in
            try AppleTokenMinter.hmacForgery(AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: raw))
        },
        Rejection(description: "malformed JWS: two parts") { _, _ in "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0" },
        Rejection(description: "malformed JWS: not base64url") { _, _ in "e30.e30.!!!" },
        Rejection(description: "malformed JWS: empty") { _, _ in "" },
    ]

    @Test(arguments: rejections)
    func isRefusedWithOneCode(_ rejection: Rejection) throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try rejection.token(fixture, raw)
        let reply = try fixture.signIn(token: token, rawNonce: raw)
        #expect(reply.status == 401)
        #expect(reply.errorCode == "invalid_identity_token")
        #expect(!reply.text.contains("appleToken"), "the precise reason stays in the log")
        #expect(fixture.log.contains { $0.hasPrefix("apple sign-in refused: appleToken.") })
        #expect(!fixture.log.contains { $0.contains(raw) || (!token.isEmpty && $0.contains(token)) })
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) == nil)
    }

    @Test(arguments: [AppleTokenMinter.bundleID, AppleTokenMinter.servicesID])
    func acceptsEachConfiguredAudience(_ audience: String) throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw) { $0["aud"] = audience }
        let reply = try fixture.signIn(token: token, rawNonce: raw)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["isNewAccount"] as? Bool == true)
        #expect(reply.object["appleUserID"] as? String == AppleTokenMinter.subject)
        #expect((reply.object["token"] as? String)?.isEmpty == false)
        #expect(reply.headers["set-cookie"]?.hasPrefix("__Host-passkeyd_session=") == true)
        #expect(reply.headers["cache-control"] == "no-store")
        #expect(!fixture.log.contains { $0.contains(raw) || $0.contains(token) || $0.contains(AppleTokenMinter.subject) })
    }

    @Test func aServerIssuedNonceIsSingleUse() throws {
        let fixture = try AppleFixture()
        let issued = try fixture.client.send("POST", "/auth/apple/nonce", json: Array("{}".utf8))
        #expect(issued.status == 200)
        let raw = try #require(issued.object["nonce"] as? String)
        #expect(try PasskeyClient.bytes(raw).count == 32)
        #expect(issued.object["expiresAt"] is String)
        let token = try fixture.identityToken(rawNonce: raw)
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 200)
        let replay = try fixture.signIn(token: token, rawNonce: raw)
        #expect(replay.status == 401)
        #expect(replay.errorCode == "invalid_identity_token")
        #expect(fixture.log.contains("apple sign-in refused: the raw nonce or the identity token was already used"))
    }

    @Test func aClientGeneratedNonceIsSingleUse() throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw)
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 200)
        fixture.clock.advance(by: 300)
        let replay = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(replay.status == 401)
        #expect(replay.errorCode == "invalid_identity_token")
    }

    @Test func anExpiredServerIssuedNonceIsRefused() throws {
        let fixture = try AppleFixture()
        let raw = try #require(try fixture.client.send("POST", "/auth/apple/nonce", json: Array("{}".utf8)).object["nonce"] as? String)
        fixture.clock.advance(by: 301)
        let reply = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(reply.status == 401)
        #expect(fixture.log.contains("apple sign-in refused: the server-issued nonce expired"))
    }

    @Test func anUnknownKidRefreshesTheKeysAtMostOnceAMinute() throws {
        let fixture = try AppleFixture()
        try fixture.signInFresh()
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 1)
        let rotated = { (raw: String) throws -> String in
            try AppleTokenMinter.sign(AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: raw), keyID: AppleTestKeys.rotatedKeyID)
        }
        let early = AppleFixture.rawNonce()
        #expect(try fixture.signIn(token: try rotated(early), rawNonce: early).status == 401)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 1, "keys fetched under a minute ago are not fetched again")
        fixture.clock.advance(by: 60)
        let first = AppleFixture.rawNonce()
        let refreshing = try fixture.signIn(token: try rotated(first), rawNonce: first)
        #expect(refreshing.status == 503, "the unknown kid starts a refresh and is not kept waiting for it")
        #expect(refreshing.errorCode == "apple_unavailable")
        try fixture.awaitKeyFetches(2)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 2, "one refresh for the unknown kid")
        #expect(try fixture.signIn(token: try rotated(first), rawNonce: first).status == 401, "still unknown after the refresh")
        fixture.standIn.publishRotatedKey()
        fixture.clock.advance(by: 30)
        let second = AppleFixture.rawNonce()
        #expect(try fixture.signIn(token: try rotated(second), rawNonce: second).status == 401)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 2, "no second refresh within a minute")
        fixture.clock.advance(by: 31)
        let third = AppleFixture.rawNonce()
        #expect(try fixture.signIn(token: try rotated(third), rawNonce: third).status == 503)
        try fixture.awaitKeyFetches(3)
        #expect(try fixture.signIn(token: try rotated(third), rawNonce: third).status == 200)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 3)
        try fixture.signInFresh(subject: "001.other")
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 3, "cached keys serve later tokens")
    }

    @Test func theKeysAreRefreshedAheadOfExpiryInTheBackground() throws {
        let fixture = try AppleFixture()
        try fixture.signInFresh()
        fixture.clock.advance(by: 2699)
        try fixture.signInFresh()
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 1)
        fixture.clock.advance(by: 2)
        try fixture.signInFresh()
        try fixture.awaitKeyFetches(2)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 2, "three quarters into their hour the keys are refreshed")
        // Apple goes down before the refresh this sign-in starts (were it up, the refresh could land before the next
        // sign-in and renew the keys): the cached keys still serve it, and the refresh fails.
        fixture.standIn.available = false
        fixture.clock.advance(by: 3599)
        try fixture.signInFresh()
        try fixture.awaitKeyFetches(3)
        fixture.clock.advance(by: 2)
        let raw = AppleFixture.rawNonce()
        let expired = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(expired.status == 503, "expired keys are never used")
    }

    @Test func theWorkerRoundRefreshesDueKeys() throws {
        let fixture = try AppleFixture()
        fixture.clock.advance(by: 2701)
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 1, "processDueAppleWork is the exchange and revocation work only")
        fixture.server.startAppleWorker()
        defer { fixture.server.stopAppleWorker() }
        try fixture.awaitKeyFetches(2)
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 2)
    }

    @Test func appleDownIs503AndNeverAnAcceptedToken() throws {
        let fixture = try AppleFixture(prefetchKeys: false)
        fixture.standIn.available = false
        let raw = AppleFixture.rawNonce()
        let reply = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "apple_unavailable")
        try fixture.awaitKeyFetches(1)
        fixture.standIn.available = true
        #expect(try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw).status == 503, "a failed fetch backs off")
        #expect(fixture.standIn.calls(to: "/auth/keys").count == 1)
        fixture.clock.advance(by: 6)
        #expect(try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw).status == 503)
        try fixture.awaitKeyFetches(2)
        #expect(
            try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw).status == 200,
            "a refusal for lack of keys does not burn the nonce"
        )
    }

    @Test func anUnusableKeyDocumentIs503() throws {
        let fixture = try AppleFixture(prefetchKeys: false)
        fixture.standIn.servesMalformedKeys = true
        try fixture.fetchKeys()
        let raw = AppleFixture.rawNonce()
        let reply = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "apple_unavailable")
        #expect(fixture.log.contains("apple keys: fetch failed (jwks.malformed)"))
    }

    @Test func anUnreachableKeyURLIs503() throws {
        let fixture = try AppleFixture(jwksURL: "http://127.0.0.2:9/auth/keys")
        let raw = AppleFixture.rawNonce()
        let reply = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(reply.status == 503)
        #expect(reply.errorCode == "apple_unavailable")
    }

    /// Issue 15: duplicate members were read first-wins; a notification or sign-in body repeating one is refused.
    @Test func bodiesRepeatingAMemberAreInvalidJSON() throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw)
        let signIn = try fixture.client.send(
            "POST",
            "/auth/apple",
            json: Array(#"{"identityToken":"\#(token)","rawNonce":"\#(raw)","rawNonce":"x"}"#.utf8)
        )
        #expect(signIn.status == 400)
        #expect(signIn.errorCode == "invalid_json")
        let notification = try fixture.client.send("POST", "/auth/apple/notifications", json: Array(#"{"payload":"a.b.c","payload":"d.e.f"}"#.utf8))
        #expect(notification.status == 400)
        #expect(notification.errorCode == "invalid_json")
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 200, "the refused body consumed nothing")
    }

    @Test func badRequestBodiesAre400() throws {
        let fixture = try AppleFixture()
        let missing = try fixture.client.send("POST", "/auth/apple", json: try AppleTokenMinter.json(["identityToken": "x"]))
        #expect(missing.status == 400)
        #expect(missing.errorCode == "invalid_request")
        let notJSON = try fixture.client.send("POST", "/auth/apple", json: Array("nonsense".utf8))
        #expect(notJSON.status == 400)
        let emptyNonce = try fixture.signIn(token: "x.y.z", rawNonce: "")
        #expect(emptyNonce.status == 400)
        let longName = try fixture.signIn(token: "x.y.z", rawNonce: "n", extra: ["fullName": ["givenName": String(repeating: "a", count: 80)]])
        #expect(longName.status == 401, "an unusable name never refuses the request: the token does")
    }
}
