import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import Storage

/// Expired sessions, challenges, remembered Apple nonces, the OpenID provider's codes and grants, and events past their
/// 7-day retention, are removed at most once a minute, when a challenge is stored (here: the options of an unknown
/// username) or a sealed one verified; every purge operation of the store is one that the server runs.
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

    /// An authorization code that was never exchanged goes a minute after it expired; a grant (with its refresh tokens)
    /// when its lifetime is over.
    @Test func expiredAuthorizationCodesAndGrantsArePurged() throws {
        let fixture = try TokenFixture(OpenIDProviderTests.configuration, store: store, clock: clock)
        let account = try fixture.client.register("olivia")
        let cookie = [("Cookie", "__Host-passkeyd_session=\(account.token)")]
        func code() throws -> String {
            let reply = try fixture.client.send("GET", "/oauth/authorize?" + OpenIDProviderTests.authorizeQuery(), headers: cookie)
            if OpenIDProviderTests.asksConsent(reply) {
                let allowed = try OpenIDProviderTests.allow(OpenIDProviderTests.authorizeQuery(), cookie: cookie, with: fixture.client)
                return try #require(OpenIDProviderTests.parameters(location: allowed.object["redirect"] as? String ?? "")["code"])
            }
            return try #require(OpenIDProviderTests.parameters(reply)["code"], "\(reply.status) \(reply.text)")
        }
        _ = try code()
        let form = OpenIDProviderTests.query([
            ("grant_type", "authorization_code"), ("code", try code()), ("redirect_uri", "com.example.app:/callback"),
            ("code_verifier", OpenIDProviderTests.verifier), ("client_id", "ios"),
        ])
        let exchanged = try fixture.client.send(
            "POST",
            "/oauth/token",
            json: Array(form.utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")]
        )
        #expect(exchanged.status == 200, "\(exchanged.text)")
        let held = { store.state.withLock { ($0.authorizationCodes.count, $0.oauthGrants.count, $0.refreshTokens.count) } }
        #expect(held().1 == 1 && held().2 == 1 && held().0 >= 1)
        clock.advance(by: 61)
        _ = try fixture.client.requestOptions(username: "nobody")
        #expect(held() == (0, 1, 1), "the expired codes are gone, the grant stays")
        clock.advance(by: 2_592_000)
        _ = try fixture.client.requestOptions(username: "nobody")
        #expect(held() == (0, 0, 0), "the expired grant is gone with its refresh token")
    }

    /// Every `purge…` operation that a store protocol declares is called by the server, so that no kind of expired
    /// record is kept for ever because nothing asks for its deletion (the OpenID provider's were, until issue 36).
    @Test func everyPurgeOperationOfTheStoreIsScheduled() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        func sources(_ folder: String) throws -> [String] {
            let root = repository.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            return try enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map { try String(contentsOf: $0, encoding: .utf8) }
        }
        // The requirements of the store protocols: `func purge…(` inside a `protocol` declaration's files (the drivers'
        // implementations live in other files and modules).
        let declared = Set(
            try sources("Sources/Storage").filter { $0.contains("public protocol ") }.flatMap { text in
                text.matches(of: /\n\s+func (purge[A-Za-z]+)\(/).map { String($0.output.1) }
            }
        )
        #expect(declared.count >= 6, "found \(declared.sorted())")
        // The server and the mail outbox's delivery, which it runs (`MailDelivery` in the Email module purges sent mail).
        let server = try (sources("Sources/RelyingPartyServer") + sources("Sources/Email")).joined(separator: "\n")
        let uncalled = declared.filter { !server.contains(".\($0)(") }
        #expect(uncalled.isEmpty, "declared by the store but never called by the server: \(uncalled.sorted())")
    }
}
