import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Recovery codes: ten single-use codes, hashed at rest, a new set replacing the old, and the restricted session one
/// gives, which can only register a passkey, read `/me` and sign out.
struct RecoveryCodeTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    func codes(_ token: String) throws -> [String] {
        let reply = try client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(token))
        #expect(reply.status == 200)
        return reply.object["codes"] as? [String] ?? []
    }

    func recover(_ username: String, _ code: String) throws -> ServerReply {
        try client.send("POST", "/auth/recovery", json: Array(#"{"username": "\#(username)", "code": "\#(code)"}"#.utf8))
    }

    @Test func tenCodesOnlyHashedEachUsedOnceANewSetReplacingTheOld() throws {
        let alice = try client.register("alice")
        let first = try codes(alice.token)
        #expect(first.count == 10 && Set(first).count == 10 && first.allSatisfy { $0.count == 11 })
        let stored = store.state.withLock { $0.recoveryCodes[alice.userID] } ?? []
        #expect(stored.count == 10 && stored.allSatisfy { $0.count == 32 }, "only SHA-256s")
        #expect(stored.contains(DigestAlgorithm.sha256.hash(Array(first[0].replacingOccurrences(of: "-", with: "").utf8))))

        let used = try recover("alice", first[0].uppercased().replacingOccurrences(of: "-", with: " "))
        #expect(used.status == 200 && used.object["restricted"] as? Bool == true)
        #expect(try recover("alice", first[0]).errorCode == "recovery_code_invalid", "used once")
        #expect(try recover("nobody", first[1]).errorCode == "recovery_code_invalid", "an unknown username reads the same")
        #expect(try recover("alice", "aaaaa-aaaaa").errorCode == "recovery_code_invalid")

        let second = try codes(alice.token)
        #expect(try recover("alice", first[1]).errorCode == "recovery_code_invalid", "the old set is gone")
        #expect(try recover("alice", second[0]).status == 200)
        let events = try store.allEvents().map(\.type).filter { $0.hasPrefix("recovery") }
        #expect(events == ["recovery_codes.created", "recovery_code.used", "recovery_codes.created", "recovery_code.used"])
        let usedEvent = try #require(try store.allEvents().last { $0.type == "recovery_code.used" })
        #expect(String(decoding: usedEvent.data, as: UTF8.self).contains(#""remaining":9"#))
    }

    @Test func aRecoverySessionCanOnlyAddAPasskeyReadMeAndSignOut() throws {
        let alice = try client.register("alice")
        let code = try #require(try codes(alice.token).first)
        let recovered = try recover("alice", code)
        let token = try #require(recovered.object["token"] as? String)
        let bearer = PasskeyClient.bearer(token)
        #expect(try client.send("GET", "/me", headers: bearer).status == 200)
        // Refused: deleting the account, a second factor (new recovery codes; an Apple link is a sign-in with a
        // session, refused as well), sessions, passkeys, merges.
        for (method, path, body) in [
            ("DELETE", "/me", nil), ("POST", "/me/recovery-codes", nil), ("GET", "/me/passkeys", nil),
            ("DELETE", "/me/passkeys/" + Base64URL.encode(alice.credential.id), nil), ("GET", "/me/sessions", nil),
            ("POST", "/me/sessions/revoke-others", nil), ("POST", "/auth/apple", #"{"identityToken": "x"}"#),
            ("POST", "/me/merge", #"{"mergeToken": "x"}"#), ("POST", "/session/handoff", nil),
        ] as [(String, String, String?)] {
            let reply = try client.send(method, path, json: body.map { Array($0.utf8) }, headers: bearer)
            #expect(reply.status == 403 && reply.errorCode == "recovery_session_restricted", "\(method) \(path)")
        }
        #expect(try store.user(id: alice.userID) != nil)
        #expect(try store.transaction { transaction throws(StorageError) in try transaction.recoveryCodeCount(userID: alice.userID) } == 9)
        // A new passkey through the recovery session, which then signs in in full.
        let added = try client.addPasskey(token: token)
        #expect(try store.credentials(userID: alice.userID).count == 2)
        let full = try #require(try client.signIn(added).object["token"] as? String)
        #expect(try client.send("GET", "/me/sessions", headers: PasskeyClient.bearer(full)).status == 200)
        #expect(try client.send("POST", "/logout", headers: bearer).status == 200)
    }

    @Test func theRecoverySessionExpiresAfterItsOwnLifetime() throws {
        let alice = try client.register("alice")
        let code = try #require(try codes(alice.token).first)
        let token = try #require(try recover("alice", code).object["token"] as? String)
        clock.advance(by: 899)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        clock.advance(by: 1)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)
    }
}
