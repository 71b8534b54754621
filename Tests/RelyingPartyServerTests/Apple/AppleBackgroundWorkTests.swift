import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

@Suite("Sign in with Apple: code exchange and revocation")
struct AppleBackgroundWorkTests {
    /// Checks a client secret the way Apple does: ES256 under the `.p8` key's public key, Apple's claims.
    static func expectValidClientSecret(_ secret: String?, clientID: String, now: Date) throws {
        let jws = try CompactJWS(try #require(secret))
        #expect(jws.header.alg == "ES256")
        #expect(jws.header.kid == AppleFixture.keyID)
        #expect(jws.verifySignature(with: try AppleTestKeys.shared.p8.publicKey(), allowedAlgorithms: ["ES256"]))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        #expect(claims["iss"] as? String == AppleFixture.teamID)
        #expect(claims["sub"] as? String == clientID)
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        let issuedAt = try #require(claims["iat"] as? Int)
        let expiresAt = try #require(claims["exp"] as? Int)
        #expect(abs(issuedAt - Int(now.timeIntervalSince1970)) <= 1)
        #expect(expiresAt > issuedAt && expiresAt - issuedAt <= 300, "short-lived")
    }

    @Test(arguments: [AppleTokenMinter.bundleID, AppleTokenMinter.servicesID])
    func theCodeIsExchangedOffTheRequestPathAndTheRefreshTokenStoredEncrypted(_ audience: String) throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw) { $0["aud"] = audience }
        #expect(try fixture.signIn(token: token, rawNonce: raw, extra: ["authorizationCode": "c.code-123"]).status == 200)
        #expect(fixture.standIn.calls(to: "/auth/token").isEmpty, "nothing happens on the request path")
        fixture.server.processDueAppleWork()
        let calls = fixture.standIn.calls(to: "/auth/token")
        let call = try #require(calls.first)
        #expect(calls.count == 1)
        #expect(call.contentType == "application/x-www-form-urlencoded")
        #expect(Set(call.form.keys) == ["client_id", "client_secret", "code", "grant_type"])
        #expect(call.form["client_id"] == audience)
        #expect(call.form["code"] == "c.code-123")
        #expect(call.form["grant_type"] == "authorization_code")
        try Self.expectValidClientSecret(call.form["client_secret"], clientID: audience, now: fixture.clock.now)

        let refreshToken = try #require(fixture.standIn.issuedRefreshTokens.first)
        let held = try fixture.store.appleRefreshTokens(subject: AppleTokenMinter.subject)
        #expect(held.map(\.clientID) == [audience])
        let stored = try #require(held.first?.encryptedToken)
        #expect(stored.count == refreshToken.utf8.count + 28)
        #expect(!String(decoding: stored, as: UTF8.self).contains(refreshToken))
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/token").count == 1, "a code is exchanged once")
        #expect(!fixture.log.contains { $0.contains("c.code-123") || $0.contains(refreshToken) })
    }

    @Test func deletingTheAccountRevokesTheRefreshToken() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh(extra: ["authorizationCode": "c.code-1"])
        fixture.server.processDueAppleWork()
        let refreshToken = try #require(fixture.standIn.issuedRefreshTokens.first)
        let token = try #require(reply.object["token"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        #expect(try fixture.store.user(id: try AppleFixture.userID(reply)) == nil)
        fixture.server.processDueAppleWork()
        let calls = fixture.standIn.calls(to: "/auth/revoke")
        #expect(calls.count == 1)
        let call = try #require(calls.first)
        #expect(call.contentType == "application/x-www-form-urlencoded")
        #expect(Set(call.form.keys) == ["client_id", "client_secret", "token", "token_type_hint"])
        #expect(call.form["client_id"] == AppleTokenMinter.bundleID)
        #expect(call.form["token"] == refreshToken)
        #expect(call.form["token_type_hint"] == "refresh_token")
        try Self.expectValidClientSecret(call.form["client_secret"], clientID: AppleTokenMinter.bundleID, now: fixture.clock.now)
        #expect(try fixture.store.dueRevocations(now: fixture.clock.now.addingTimeInterval(1e6), limit: 10) == [])
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").count == 1)
    }

    @Test(arguments: [false, true])
    func deletionWhileAppleIsDownRetriesUntilTheRevocationIsDelivered(sqlite: Bool) throws {
        let fixture = try AppleFixture(store: sqlite ? try SQLiteStore.inMemory() : InMemoryStore())
        let reply = try fixture.signInFresh(extra: ["authorizationCode": "c.code-2"])
        fixture.server.processDueAppleWork()
        let refreshToken = try #require(fixture.standIn.issuedRefreshTokens.first)
        fixture.standIn.available = false
        let token = try #require(reply.object["token"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        #expect(try fixture.store.user(id: try AppleFixture.userID(reply)) == nil, "the account is gone at once")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)

        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").count == 1)
        fixture.clock.advance(by: 61)
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").count == 2, "retried after the backoff")
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").count == 2, "not before the next backoff (2 minutes)")

        fixture.standIn.available = true
        fixture.clock.advance(by: 121)
        fixture.server.processDueAppleWork()
        let calls = fixture.standIn.calls(to: "/auth/revoke")
        #expect(calls.count == 3)
        #expect(calls.last?.form["token"] == refreshToken)
        #expect(try fixture.store.dueRevocations(now: fixture.clock.now.addingTimeInterval(1e6), limit: 10) == [])
        #expect(fixture.log.contains("apple revocation failed (status 503); retrying"))
    }

    @Test func anExchangeWhileAppleIsDownIsRetriedWhileTheCodeIsValid() throws {
        let fixture = try AppleFixture()
        try fixture.signInFresh(extra: ["authorizationCode": "c.code-3"])
        fixture.standIn.available = false
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/token").count == 1)
        fixture.standIn.available = true
        fixture.clock.advance(by: 5)
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/token").count == 2)
        #expect(try fixture.store.appleRefreshTokens(subject: AppleTokenMinter.subject).count == 1)
    }

    @Test func anAccountWithoutARefreshTokenIsDeletedWithoutCallingAppleAndTheLogSaysSo() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        let token = try #require(reply.object["token"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").isEmpty)
        #expect(fixture.log.contains { $0.hasPrefix("account deleted: no Apple refresh token was held") })
    }

    /// One refresh token per (identity, client ID): the app's and the website's are both kept, a newer one for the
    /// same client replaces (and revokes) the older, and deleting the account revokes every one held.
    @Test func oneRefreshTokenPerClientIDAndDeletionRevokesEveryOne() throws {
        let fixture = try AppleFixture()
        var reply = try fixture.signInFresh(extra: ["authorizationCode": "c.app-1"])
        fixture.server.processDueAppleWork()
        let raw = AppleFixture.rawNonce()
        let web = try fixture.identityToken(rawNonce: raw) { $0["aud"] = AppleTokenMinter.servicesID }
        reply = try fixture.signIn(token: web, rawNonce: raw, extra: ["authorizationCode": "c.web-1"])
        #expect(reply.status == 200)
        fixture.server.processDueAppleWork()
        try fixture.signInFresh(extra: ["authorizationCode": "c.app-2"])
        fixture.server.processDueAppleWork()
        let issued = fixture.standIn.issuedRefreshTokens
        #expect(issued.count == 3)
        #expect(
            try fixture.store.appleRefreshTokens(subject: AppleTokenMinter.subject).map(\.clientID) == [
                AppleTokenMinter.bundleID, AppleTokenMinter.servicesID,
            ]
        )
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").map { $0.form["token"] } == [issued[0]], "the replaced app token is revoked")

        let token = try #require(reply.object["token"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        fixture.server.processDueAppleWork()
        let revoked = fixture.standIn.calls(to: "/auth/revoke")
        #expect(Set(revoked.dropFirst().compactMap { $0.form["token"] }) == [issued[1], issued[2]])
        #expect(Set(revoked.dropFirst().compactMap { $0.form["client_id"] }) == [AppleTokenMinter.bundleID, AppleTokenMinter.servicesID])
    }

    @Test func theWorkerThreadRunsTheWorkAndStops() throws {
        let fixture = try AppleFixture()
        try fixture.signInFresh(extra: ["authorizationCode": "c.code-4"])
        fixture.server.startAppleWorker()
        let deadline = Date().addingTimeInterval(10)
        while fixture.standIn.calls(to: "/auth/token").isEmpty, Date() < deadline { usleep(20_000) }
        fixture.server.stopAppleWorker()
        fixture.server.stopAppleWorker()
        #expect(fixture.standIn.calls(to: "/auth/token").count == 1)
    }
}
