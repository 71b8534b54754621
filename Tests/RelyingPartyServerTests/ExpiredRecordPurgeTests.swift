import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// Expired sessions, challenges and remembered Apple nonces, and events past their 7-day retention, are removed at
/// most once a minute, when a challenge is stored (here: the options of an unknown username) or a sealed one verified.
struct ExpiredRecordPurgeTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    /// Whether the store still holds the session of `token`, expired or not.
    func holdsSession(_ token: String) throws -> Bool {
        try store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(token.utf8)), now: .distantPast) != nil
    }

    func rememberNonce(_ hash: [UInt8], until: Date) throws -> Bool {
        try store.transaction { transaction throws(StorageError) in try transaction.rememberNonce(hash, until: until, now: clock.now) }
    }

    @Test func expiredRowsDisappearOnTheNextPurge() throws {
        let account = try client.register("alice")
        #expect(try rememberNonce([0x4E], until: clock.now.addingTimeInterval(600)))
        let created = clock.now
        // A week later the session (7 days) has expired; its events (at `created`) are exactly 7 days old, still kept.
        clock.advance(by: 604_800)
        _ = try client.requestOptions(username: "nobody")
        #expect(try !holdsSession(account.token), "the expired session")
        #expect(try rememberNonce([0x4E], until: clock.now.addingTimeInterval(600)), "the nonce was forgotten")
        #expect(try store.allEvents().map(\.occurredAt) == [created, created, created], "events within the retention stay")
        clock.advance(by: 60)
        _ = try client.requestOptions(username: "nobody")
        #expect(try store.allEvents() == [], "events past the retention")
    }

    @Test func verifyingASealedChallengeRunsThePurgeAndIssuingOneDoesNot() throws {
        let account = try client.register("alice")
        clock.advance(by: 604_800)
        let options = try client.requestOptions()
        #expect(try holdsSession(account.token), "a sealed challenge is issued on the loop, which never waits on the store")
        #expect(try client.authenticationVerify(try client.assertion(account.credential, answering: options)).status == 200)
        #expect(try !holdsSession(account.token), "purged by the verification")
    }

    @Test func thePurgeRunsAtMostOnceAMinute() throws {
        let first = try client.register("alice")
        clock.advance(by: 604_800)
        let second = try client.register("bob")  // purges alice's session
        #expect(try !holdsSession(first.token))
        clock.advance(by: 604_800 - 30)
        _ = try client.requestOptions(username: "nobody")  // purges nothing yet: bob's session has 30 s left
        clock.advance(by: 40)
        _ = try client.requestOptions(username: "nobody")  // within a minute of the last purge
        #expect(try holdsSession(second.token), "expired, but not yet purged")
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(second.token)).status == 401)
        clock.advance(by: 20)
        _ = try client.requestOptions(username: "nobody")
        #expect(try !holdsSession(second.token), "purged a minute after the last purge")
    }

    @Test func aLiveSessionIsKeptAndItsUseRecorded() throws {
        let account = try client.register("alice")
        clock.advance(by: 600)
        _ = try client.requestOptions(username: "nobody")
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        let session = try #require(try store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(account.token.utf8)), now: clock.now))
        #expect(session.lastUsedAt == clock.now)
        clock.advance(by: 10)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        let unchanged = try #require(try store.session(tokenHash: session.tokenHash, now: clock.now))
        #expect(unchanged.lastUsedAt == session.lastUsedAt, "written at most every 5 minutes")
    }
}
