import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 37: unlinking an identity at an OpenID provider ends the sessions it signed in (as unlinking an Apple ID
/// does), and only those: not a passkey's, not another identity's.
@Suite struct FederatedUnlinkSessionTests {
    @Test func unlinkingEndsExactlyTheSessionsOfThatIdentity() throws {
        let fixture = try GoogleFixture()
        let carol = try fixture.client.register("carol")
        let token = { (reply: ServerReply) throws -> String in try #require(reply.object["token"] as? String) }
        let linking = try token(try fixture.signInFresh(subject: "200", email: "a@example.com", headers: PasskeyClient.bearer(carol.token)))
        let again = try token(try fixture.signInFresh(subject: "200", email: "a@example.com"))
        let otherIdentity = try token(try fixture.signInFresh(subject: "300", email: "b@example.com", headers: PasskeyClient.bearer(carol.token)))
        let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(again))
        let (path, code) = try SessionHandoffTests.pathAndQuery(try #require(started.object["url"] as? String))
        let setCookie = try #require(try fixture.client.send("GET", "\(path)?code=\(code)").headers["Set-Cookie"])
        let handedOff = [("Cookie", String(setCookie.prefix { $0 != ";" }))]
        let stored = try fixture.store.sessions(userID: carol.userID, now: fixture.clock.now)
        let identitySessions = stored.filter { $0.federatedSubject == "200" }
        #expect(identitySessions.count == 3 && identitySessions.allSatisfy { $0.federatedIssuer == GoogleStandIn.issuer })
        #expect(stored.filter { $0.federatedSubject == "300" }.count == 1 && stored.filter { $0.method == .passkey }.count == 1)
        let before = try fixture.store.events(after: 0, limit: 1000).count

        let unlinked = try fixture.client.send("DELETE", "/me/identities/google/200", headers: PasskeyClient.bearer(linking))
        #expect(unlinked.status == 200 && unlinked.object["unlinked"] as? Bool == true)
        #expect(unlinked.headers["Set-Cookie"]?.contains("Max-Age=0") == true, "the request's own session ended")
        for ended in [PasskeyClient.bearer(linking), PasskeyClient.bearer(again), handedOff] {
            #expect(try fixture.client.send("GET", "/me", headers: ended).status == 401)
        }
        for kept in [carol.token, otherIdentity] {
            let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(kept))
            #expect(me.status == 200)
            let identities = (me.object["signInMethods"] as? [String: Any])?["identities"] as? [[String: Any]]
            #expect(identities?.map { $0["subject"] as? String } == ["300"])
        }
        let left = try fixture.store.sessions(userID: carol.userID, now: fixture.clock.now)
        #expect(Set(left.map(\.id)) == Set(stored.filter { $0.federatedSubject != "200" && $0.parentID == nil }.map(\.id)))

        let events = try fixture.store.events(after: 0, limit: 1000).dropFirst(before).map { event in
            (event.type, (try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]) ?? [:])
        }
        #expect(events.map(\.0) == ["session.revoked", "session.revoked", "session.revoked", "identity.unlinked"])
        let revoked = events.dropLast().map(\.1)
        #expect(revoked.map { $0["reason"] as? String } == ["identity_unlinked", "identity_unlinked", "parent_ended"])
        let againSession = try #require(stored.first { $0.tokenHash == DigestAlgorithm.sha256.hash(Array(again.utf8)) })
        #expect(revoked[2]["parentSessionId"] as? String == Base64URL.encode(againSession.id), "the hand-off ended with its parent")
        #expect(revoked.allSatisfy { $0["issuer"] as? String == GoogleStandIn.issuer && $0["subject"] as? String == "200" })
        #expect(Set(revoked.compactMap { $0["sessionId"] as? String }) == Set(identitySessions.map { Base64URL.encode($0.id) }))
    }
}
