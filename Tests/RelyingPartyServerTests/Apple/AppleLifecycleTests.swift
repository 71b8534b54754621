import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// Revocation that keeps the account, deletion of one identity, notifications applied once and in order, identity
/// tokens accepted once whatever their nonce, the nonce and the account written together, and names in both forms.
@Suite("Sign in with Apple: the account lifecycle")
struct AppleLifecycleTests {
    static func token(_ reply: ServerReply) throws -> String { try #require(reply.object["token"] as? String) }

    /// consent-revoked ends the identity's sessions (not the passkey's), drops its refresh tokens and marks it; the next
    /// sign-in with the same sub lands in the same account, clears the mark and stores a name sent again when the
    /// account had only a default one.
    @Test(arguments: [false, true])
    func revokeAndReturnLandsInTheSameAccount(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let first = try fixture.signInFresh(extra: ["authorizationCode": "c.first"])
        fixture.server.processDueAppleWork()
        let userID = try AppleFixture.userID(first)
        #expect(try fixture.store.user(id: userID)?.displayName == "x7k2q9", "no name came: the default")
        let passkey = try fixture.client.addPasskey(token: try Self.token(first))
        let passkeySession = try Self.token(try fixture.client.signIn(passkey))
        #expect(try fixture.notify(AppleFixture.event("consent-revoked")).status == 200)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(try Self.token(first))).status == 401)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(passkeySession)).status == 200, "not the passkey's")
        let revoked = try #require(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject))
        #expect(revoked.consentRevoked && revoked.userID == userID)
        #expect(try fixture.store.appleRefreshTokens(subject: AppleTokenMinter.subject) == [])
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(passkeySession))
        let apple = try #require(((me.object["signInMethods"] as? [String: Any])?["apple"] as? [[String: Any]])?.first)
        #expect(apple["consentRevoked"] as? Bool == true)

        fixture.clock.advance(by: 60)
        let back = try fixture.signInFresh(extra: ["fullName": ["givenName": "Jane", "familyName": "Appleseed"]])
        #expect(try AppleFixture.userID(back) == userID && back.object["isNewAccount"] as? Bool == false)
        #expect((back.object["user"] as? [String: Any])?["displayName"] as? String == "Jane Appleseed")
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.consentRevoked == false)
        let later = try fixture.signInFresh(extra: ["fullName": "Someone Else"])
        #expect((later.object["user"] as? [String: Any])?["displayName"] as? String == "Jane Appleseed", "an own name is never replaced")
        let types = try fixture.store.allEvents().map(\.type)
        #expect(types.contains("apple.consent_revoked") && types.contains("user.updated"))
    }

    /// account-delete for an identity of an account with another way in removes that identity and its sessions, keeps
    /// the account, its passkeys and their sessions, and queues its refresh token's revocation.
    @Test(arguments: [false, true])
    func accountDeleteOfOneIdentityKeepsTheAccount(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let alice = try fixture.client.register("alice")
        let appleSession = try Self.token(
            try fixture.signInFresh(extra: ["authorizationCode": "c.alice"], headers: PasskeyClient.bearer(alice.token))
        )
        fixture.server.processDueAppleWork()
        #expect(try fixture.notify(AppleFixture.event("account-delete")).status == 200)
        #expect(try fixture.store.user(id: alice.userID) != nil)
        #expect(try fixture.store.credentials(userID: alice.userID).count == 1)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) == nil)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(appleSession)).status == 401)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200)
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").count == 1)
        let events = try fixture.store.allEvents().filter { $0.type == "apple.unlinked" }
        #expect(events.count == 1 && String(decoding: events[0].data, as: UTF8.self).contains(#""reason":"apple_account_deleted""#))
    }

    /// A notification is applied once: the same `jti` again changes nothing (200); without a `jti`, its payload
    /// identifies it. One older than the newest applied for its `sub` changes nothing (200).
    @Test(arguments: [false, true])
    func notificationsApplyOnceAndInOrder(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        try fixture.signInFresh()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true, at: start.addingTimeInterval(20)), jti: "n-1").status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true)
        // An older email-enabled arrives late: out of order, ignored.
        #expect(try fixture.notify(AppleFixture.event("email-enabled", email: true, at: start.addingTimeInterval(10)), jti: "n-0").status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true)
        #expect(fixture.log.contains("apple notification: email-enabled (out of order)"))
        // A newer one applies; replaying it (same jti) after a newer disable changes nothing.
        let enable = AppleFixture.event("email-enabled", email: true, at: start.addingTimeInterval(30))
        #expect(try fixture.notify(enable, jti: "n-2").status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == false)
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true, at: start.addingTimeInterval(40)), jti: "n-3").status == 200)
        #expect(try fixture.notify(enable, jti: "n-2").status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true)
        #expect(fixture.log.contains("apple notification: email-enabled (replayed)"))
        let count = try fixture.store.allEvents().count
        // Without a jti, the same signed payload twice is one notification.
        let claims = try AppleTokenMinter.notificationClaims(
            now: fixture.clock.now,
            event: AppleFixture.event("email-enabled", email: true, at: start.addingTimeInterval(50))
        )
        var unnamed = claims
        unnamed["jti"] = nil
        let body = try AppleTokenMinter.json(["payload": try AppleTokenMinter.sign(unnamed)])
        #expect(try fixture.client.send("POST", "/auth/apple/notifications", json: body).status == 200)
        #expect(try fixture.store.allEvents().count == count + 1)
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true, at: start.addingTimeInterval(60)), jti: "n-4").status == 200)
        #expect(try fixture.client.send("POST", "/auth/apple/notifications", json: body).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true, "the replayed enable did nothing")
    }

    /// An old consent-revoked must not undo a newer sign-in: one whose `event_time` is before the identity's last
    /// sign-in changes nothing; a newer one ends its sessions.
    @Test func anOldConsentRevokedDoesNotUndoANewerSignIn() throws {
        let fixture = try AppleFixture()
        fixture.clock.advance(by: 120)
        let session = try Self.token(try fixture.signInFresh())
        let before = AppleFixture.event("consent-revoked", at: fixture.clock.now.addingTimeInterval(-60))
        #expect(try fixture.notify(before).status == 200)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(session)).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.consentRevoked == false)
        let deletion = AppleFixture.event("account-delete", at: fixture.clock.now.addingTimeInterval(-30))
        #expect(try fixture.notify(deletion).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) != nil, "nor an old account-delete")
        #expect(try fixture.notify(AppleFixture.event("consent-revoked", at: fixture.clock.now.addingTimeInterval(1))).status == 200)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(session)).status == 401)
    }

    /// Every identity token is accepted at most once, whatever its nonce: one with `nonce_supported: false` and no
    /// nonce cannot be replayed with a fresh raw nonce.
    @Test(arguments: [false, true])
    func aTokenWithoutANonceIsAcceptedOnce(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let token = try fixture.identityToken(rawNonce: "unused") { claims in
            claims["nonce"] = nil
            claims["nonce_supported"] = false
        }
        #expect(try fixture.signIn(token: token, rawNonce: AppleFixture.rawNonce()).status == 200)
        let replay = try fixture.signIn(token: token, rawNonce: AppleFixture.rawNonce())
        #expect(replay.status == 401 && replay.errorCode == "invalid_identity_token")
        #expect(try fixture.store.allEvents().filter { $0.type == "session.created" }.count == 1)
    }

    /// The nonce, the token and the account are one transaction: a storage failure between them (the session write
    /// fails) leaves the nonce and the token usable, the retry signs in and the name sent once is stored.
    @Test(arguments: [false, true])
    func aFailedWriteLeavesTheNonceUsableAndTheNameIsKept(overHTTPS: Bool) throws {
        let store = FailingStore(InMemoryStore())
        let fixture = try AppleFixture(store: store, overHTTPS: overHTTPS)
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw)
        let name: [String: Any] = ["fullName": ["givenName": "Jane", "familyName": "Appleseed"]]
        store.failures.withLock { $0 = 1 }
        let failed = try fixture.signIn(token: token, rawNonce: raw, extra: name)
        #expect(failed.status == 503 && failed.errorCode == "storage_unavailable")
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) == nil, "nothing was written")
        let retry = try fixture.signIn(token: token, rawNonce: raw, extra: name)
        #expect(retry.status == 200, "\(retry.text)")
        #expect((retry.object["user"] as? [String: Any])?["displayName"] as? String == "Jane Appleseed")
        #expect(try fixture.signIn(token: token, rawNonce: raw, extra: name).status == 401, "a successful one consumed them")
    }

    /// `fullName` (as JSON text) as name components or as a formatted string; an unusable one is dropped with a log
    /// line holding no part of it, and never fails the sign-in.
    @Test(
        arguments: [
            (#"{"givenName": "Jane", "familyName": "Appleseed", "middleName": "Q", "nickname": null}"#, "Jane Appleseed"),
            (#"{"givenName": "  Jane  "}"#, "Jane"),
            (#""Jane Appleseed""#, "Jane Appleseed"),
            (#""  Jane\tAppleseed ""#, "Jane Appleseed"),
        ]
    )
    func aNameArrivesInEitherForm(_ fullName: String, _ stored: String) throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh(extra: ["fullName": try Self.json(fullName)])
        #expect((reply.object["user"] as? [String: Any])?["displayName"] as? String == stored)
    }

    @Test(
        arguments: [
            #"{"givenName": 42}"#, #"{"givenName": "Jane", "familyName": ["Apple"]}"#, "7", #"["Jane"]"#,
            "\"" + String(repeating: "J", count: 80) + "\"", #""Jane\u0007Appleseed""#,
        ]
    )
    func anUnusableNameIsDroppedNotRefused(_ fullName: String) throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh(extra: ["fullName": try Self.json(fullName)])
        #expect(reply.status == 200)
        #expect((reply.object["user"] as? [String: Any])?["displayName"] as? String == "x7k2q9", "the default instead")
        #expect(fixture.log.contains { $0.hasPrefix("apple sign-in: fullName") && !$0.contains("Jane") && !$0.contains("JJJ") })
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}
