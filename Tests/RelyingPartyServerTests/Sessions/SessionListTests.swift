import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// `GET /me/sessions`, `DELETE /me/sessions/{id}`, `POST /me/sessions/revoke-others`, and the sessions a deleted
/// passkey made.
struct SessionListTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    func sessions(_ token: String) throws -> [[String: Any]] {
        let reply = try client.send("GET", "/me/sessions", headers: PasskeyClient.bearer(token))
        #expect(reply.status == 200)
        return reply.object["sessions"] as? [[String: Any]] ?? []
    }

    @Test func theListShowsEachSessionAndWhichIsCurrent() throws {
        let alice = try client.register("alice")
        clock.advance(by: 60)
        let second = try client.signIn(alice.credential)
        let secondToken = try #require(second.object["token"] as? String)
        let listed = try sessions(secondToken)
        #expect(listed.count == 2)
        #expect(listed.map { $0["current"] as? Bool } == [false, true])
        #expect(listed.allSatisfy { $0["method"] as? String == "passkey" && $0["credentialId"] as? String == Base64URL.encode(alice.credential.id) })
        #expect(listed.allSatisfy { $0["createdAt"] is String && $0["expiresAt"] is String })
        #expect(!(try client.send("GET", "/me/sessions", headers: PasskeyClient.bearer(secondToken)).text.contains(alice.token)), "no tokens")
        #expect(try client.send("GET", "/me/sessions").errorCode == "not_signed_in")
        // Someone else's session list is their own.
        let bob = try client.register("bob")
        #expect(try sessions(bob.token).count == 1)
    }

    @Test func oneSessionIsRevokedByItsIDAndTheOthersAtOnce() throws {
        let alice = try client.register("alice")
        let tokens = try (0..<3).map { _ in
            clock.advance(by: 1)
            return try #require(try client.signIn(alice.credential).object["token"] as? String)
        }
        let listed = try sessions(alice.token)
        let firstID = try #require(listed[0]["id"] as? String)
        let bob = try client.register("bob")
        #expect(try client.send("DELETE", "/me/sessions/\(firstID)", headers: PasskeyClient.bearer(bob.token)).errorCode == "session_not_found")
        #expect(try client.send("DELETE", "/me/sessions/AAAA", headers: PasskeyClient.bearer(tokens[0])).errorCode == "session_not_found")
        #expect(try client.send("DELETE", "/me/sessions/\(firstID)", headers: PasskeyClient.bearer(tokens[0])).status == 200)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 401)
        #expect(try client.send("DELETE", "/me/sessions/\(firstID)", headers: PasskeyClient.bearer(tokens[0])).errorCode == "session_not_found")
        let others = try client.send("POST", "/me/sessions/revoke-others", headers: PasskeyClient.bearer(tokens[0]))
        #expect(others.status == 200 && others.object["revoked"] as? Int == 2)
        #expect(try sessions(tokens[0]).count == 1)
        for token in tokens.dropFirst() { #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401) }
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(bob.token)).status == 200, "another account's session stays")
        let revoked = try store.allEvents().filter { $0.type == "session.revoked" }.map { String(decoding: $0.data, as: UTF8.self) }
        #expect(revoked.count == 3 && revoked.allSatisfy { $0.contains(#""reason":"user""#) })
    }

    /// A session's ID is a version-7 UUID's layout: its creation's Unix milliseconds first (so that SQLite appends it to
    /// the ID's unique index instead of writing a random page of it to the WAL), then 74 random bits.
    @Test func sessionIDsBeginWithTheirTimeAndDifferInTheirRandomBits() throws {
        let registered = clock.now
        let alice = try client.register("alice")
        clock.advance(by: 0.002)
        _ = try client.signIn(alice.credential)
        _ = try client.signIn(alice.credential)
        let ids = try sessions(alice.token).map { session in
            let encoded = try #require(session["id"] as? String)
            return try #require(Base64URL.decode(encoded))
        }
        #expect(ids.count == 3)
        let milliseconds = { (date: Date) -> [UInt8] in
            let count = UInt64(date.timeIntervalSince1970 * 1000)
            return (0..<6).map { UInt8(truncatingIfNeeded: count >> (8 * (5 - UInt64($0)))) }
        }
        #expect(ids.first.map { Array($0[0..<6]) } == milliseconds(registered))
        #expect(ids.dropFirst().allSatisfy { Array($0[0..<6]) == milliseconds(clock.now) })
        #expect(ids.allSatisfy { $0.count == 16 && $0[6] >> 4 == 7 && $0[8] >> 6 == 0b10 })
        #expect(Set(ids).count == 3, "one millisecond's sessions differ in their random bits")
        #expect(ids[0].lexicographicallyPrecedes(ids[1]) && ids[0].lexicographicallyPrecedes(ids[2]), "a later session's ID sorts after")
    }

    @Test func deletingAPasskeyEndsTheOtherSessionsItMade() throws {
        let alice = try client.register("alice")
        let second = try client.addPasskey(token: alice.token)
        let bySecond = try #require(try client.signIn(second).object["token"] as? String)
        let alsoBySecond = try #require(try client.signIn(second).object["token"] as? String)
        let reply = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), headers: PasskeyClient.bearer(bySecond))
        #expect(reply.status == 200)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(bySecond)).status == 200, "the request's own session stays")
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alsoBySecond)).status == 401)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200, "the other passkey's session stays")
        let revoked = try store.allEvents().filter { $0.type == "session.revoked" }.map { String(decoding: $0.data, as: UTF8.self) }
        // addPasskey's own session was made by the second passkey too.
        #expect(revoked.count == 2 && revoked.allSatisfy { $0.contains(#""reason":"passkey_deleted""#) })
    }
}
