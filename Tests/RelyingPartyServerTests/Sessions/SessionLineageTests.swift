import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 4, the rest of the login CSRF through the hand-off link: the session a link starts ends with the
/// session that made it, whichever way that one ends, and never expires later than it.
@Suite("Session hand-off: ends with its parent")
struct SessionLineageTests {
    let fixture: AppleFixture
    let alice: PasskeyClient.Account

    init() throws {
        fixture = try AppleFixture(extraConfiguration: SessionHandoffTests.configured)
        alice = try fixture.client.register("alice")
    }

    /// Makes a hand-off link in the session of `token` and opens it in a browser without a session: the cookie header
    /// of the session it starts, and that session's token.
    func handOff(from token: String) throws -> (cookie: [(String, String)], token: String) {
        let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(token))
        let (path, code) = try SessionHandoffTests.pathAndQuery(try #require(started.object["url"] as? String))
        let opened = try fixture.client.send("GET", "\(path)?code=\(code)")
        let setCookie = try #require(opened.headers["Set-Cookie"], "\(opened.status) \(opened.text)")
        let handedOff = String(setCookie.dropFirst("__Host-passkeyd_session=".count).prefix { $0 != ";" })
        return ([("Cookie", "__Host-passkeyd_session=\(handedOff)")], handedOff)
    }

    /// The stored session of `token` (alice's unless `userID` says), expired or not, whether its parent lives or not.
    func record(of token: String, userID: [UInt8]? = nil) throws -> SessionRecord? {
        let hash = DigestAlgorithm.sha256.hash(Array(token.utf8))
        return try fixture.store.sessions(userID: userID ?? alice.userID, now: .distantPast).first { $0.tokenHash == hash }
    }

    /// The payloads of the `session.revoked` events so far, in order.
    func revocations() throws -> [[String: Any]] {
        try fixture.store.events(after: 0, limit: 1000).filter { $0.type == "session.revoked" }.map { event in
            (try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]) ?? [:]
        }
    }

    func status(_ headers: [(String, String)]) throws -> Int { try fixture.client.send("GET", "/me", headers: headers).status }

    @Test func theLinkMakersLogoutEndsTheSessionItStarted() throws {
        // The attack: the attacker makes a link in their session A; the victim's browser B opens it, signed in to the
        // attacker's account; the attacker logs out.
        let attacker = try fixture.client.register("attacker")
        let browser = try handOff(from: attacker.token)
        #expect(try status(browser.cookie) == 200)
        let parent = try #require(try record(of: attacker.token, userID: attacker.userID))
        let child = try #require(try record(of: browser.token, userID: attacker.userID))
        #expect(child.parentID == parent.id && child.expiresAt <= parent.expiresAt)
        let created = try fixture.store.events(after: 0, limit: 1000).last { $0.type == "session.created" }
        #expect(created.map { String(decoding: $0.data, as: UTF8.self) }?.contains(#""parentSessionId":"\#(Base64URL.encode(parent.id))""#) == true)
        #expect(try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(attacker.token)).status == 200)
        let after = try fixture.client.send("GET", "/me", headers: browser.cookie)
        #expect(after.status == 401 && after.errorCode == "not_signed_in")
        #expect(after.headers["Set-Cookie"]?.contains("Max-Age=0") == true, "the dead cookie is cleared")
        #expect(try record(of: browser.token, userID: attacker.userID) == nil, "deleted with its parent")
        let ended = try revocations()
        #expect(ended.map { $0["reason"] as? String } == ["logout", "parent_ended"])
        #expect(ended.map { $0["sessionId"] as? String } == [Base64URL.encode(parent.id), Base64URL.encode(child.id)])
        #expect(ended[1]["parentSessionId"] as? String == Base64URL.encode(parent.id))
    }

    /// The ways a session ends other than its own logout.
    enum Ending: String, CaseIterable {
        case revokedByID, revokedAsOthers, revokedByAdmin, accountDisabled, accountDeleted, passkeyDeleted
    }

    @Test(arguments: Ending.allCases)
    func everyEndingOfTheParentEndsItsHandOff(_ ending: Ending) throws {
        let browser = try handOff(from: alice.token)
        let parent = try #require(try record(of: alice.token))
        let child = try #require(try record(of: browser.token))
        // Another session of the account, from which the person ends the app's.
        let other = try #require(try fixture.client.signIn(alice.credential).object["token"] as? String)
        let userID = Base64URL.encode(alice.userID)
        let admin = fixture.server.controllers.admin.service
        var reason: String?
        switch ending {
        case .revokedByID:
            let path = "/me/sessions/\(Base64URL.encode(parent.id))"
            #expect(try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(other)).status == 200)
            reason = "user"
        case .revokedAsOthers:
            let revoked = try fixture.client.send("POST", "/me/sessions/revoke-others", json: Array("{}".utf8), headers: PasskeyClient.bearer(other))
            #expect(revoked.object["revoked"] as? Int == 2)
            reason = "user"
        case .revokedByAdmin:
            #expect(try admin.revokeSessions(userID: userID) == 3)
            reason = "admin"
        case .accountDisabled:
            _ = try admin.updateUser(id: userID, AdminUserChange(disabled: true))
            reason = "user_disabled"
        case .accountDeleted:
            #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200)
        case .passkeyDeleted:
            // The app's passkey goes (from a session of another passkey): the sessions it signed in end, and so does
            // the hand-off of one, whatever signed that in.
            let second = try fixture.client.addPasskey(token: alice.token)
            let byOther = try #require(try fixture.client.signIn(second).object["token"] as? String)
            let path = "/me/passkeys/\(Base64URL.encode(alice.credential.id))"
            #expect(try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(byOther)).status == 200)
            reason = "passkey_deleted"
        }
        #expect(try status(browser.cookie) == 401, "\(ending)")
        #expect(try status(PasskeyClient.bearer(alice.token)) == 401)
        #expect(try record(of: browser.token) == nil, "deleted, not merely refused")
        if let reason {
            let ended = try revocations()
            #expect(ended.first { $0["sessionId"] as? String == Base64URL.encode(parent.id) }?["reason"] as? String == reason)
            #expect(ended.first { $0["sessionId"] as? String == Base64URL.encode(child.id) }?["reason"] as? String == "parent_ended")
        }
    }

    @Test func aHandOffSessionNeverOutlivesItsParentsExpiry() throws {
        let parent = try #require(try record(of: alice.token))
        fixture.clock.advance(by: parent.expiresAt.timeIntervalSince(fixture.clock.now) - 120)
        let browser = try handOff(from: alice.token)
        let child = try #require(try record(of: browser.token))
        #expect(child.expiresAt == parent.expiresAt, "not a full lifetime of its own")
        #expect(try status(browser.cookie) == 200)
        fixture.clock.advance(by: 120)
        #expect(try status(browser.cookie) == 401)
        #expect(try status(PasskeyClient.bearer(alice.token)) == 401)
    }

    @Test func aHandOffSessionMakesNoLinkAndItsLogoutEndsOnlyItself() throws {
        let browser = try handOff(from: alice.token)
        let origin = [("Origin", "https://example.com")]
        let refused = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: browser.cookie + origin)
        #expect(refused.status == 403 && refused.errorCode == "handoff_from_handoff")
        // The same request from the app's own session, as a cookie, is not refused.
        let appCookie = [("Cookie", "__Host-passkeyd_session=\(alice.token)")]
        #expect(try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: appCookie + origin).status == 200)
        #expect(try fixture.client.send("POST", "/logout", headers: browser.cookie + origin).status == 200)
        #expect(try status(browser.cookie) == 401)
        #expect(try status(PasskeyClient.bearer(alice.token)) == 200, "the parent goes on")
    }

    /// A merge made in a hand-off session into the account its proof names: the merged account goes with the app's
    /// session and the hand-off; the survivor's new session is one of its own, signed in by the proof.
    @Test func aMergeFromAHandOffSessionContinuesInTheProvenAccount() throws {
        let browser = try handOff(from: alice.token)
        let bob = try fixture.client.register("bob")
        let merged = try fixture.merge(try fixture.passkeyProof(bob.credential), keep: "other", token: browser.token)
        #expect(merged.status == 200, "\(merged.text)")
        let survivor = try #require(merged.object["token"] as? String)
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(survivor))
        #expect(me.status == 200 && (me.object["user"] as? [String: Any])?["username"] as? String == "bob")
        #expect(try record(of: survivor, userID: bob.userID)?.parentID == nil)
        #expect(try status(browser.cookie) == 401 && status(PasskeyClient.bearer(alice.token)) == 401)
    }
}
