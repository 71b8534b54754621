import AccessTokens
import CryptoCore
import Foundation
import Storage
import StoragePostgres
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 42: nodes on PostgreSQL read the signing keys every 30 s only (ten idle nodes once cost the database ten
/// transactions a second, one read a second each), and still see a rotation or revocation made elsewhere (as by
/// `passkeyd keys`) within a second: the writing transaction announces it (`NOTIFY`), each node's listener wakes its
/// key worker.
@Suite("Signing-key changes announced to every node", PostgresClusterScope())
struct AnnouncedKeyChangeTests {
    @Test func anEmergencyRotationReachesEveryPostgresNodeWithinASecondThoughTheyPollEvery30Seconds() throws {
        let cluster = try PostgresClusterScope.current()
        let database = cluster.connectionString(database: try cluster.createDatabase())
        let stores = try (0..<3).map { _ in try PostgresStore(connectionString: database, poolSize: 4) }
        defer { stores.forEach { $0.close() } }
        let clock = ManualClock()
        let nodes = try stores.prefix(2).map { store in try TokenFixture(store: store, clock: clock) }
        // Until its listener listens, a node polls as one without a listener does.
        #expect(SigningKeyRing.refreshInterval(for: stores[0]) == SigningKeyRing.sharedRefreshInterval)
        #expect(SigningKeyRing.announcedRefreshInterval >= 30)
        let (account, first) = try nodes[0].register("uma")
        let firstID = try #require(try DecodedToken(first).keyID)
        for node in nodes { node.server.startKeyWorker() }
        defer { for node in nodes { node.server.stopKeyWorker() } }
        // Both workers ran their first round (and the listeners announced that they listen) before the rotation.
        usleep(1_500_000)
        #expect(SigningKeyRing.refreshInterval(for: stores[0]) == SigningKeyRing.announcedRefreshInterval)

        // The rotation through a third store, as `passkeyd keys rotate --now` makes it.
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let rotated = try schedule.rotate(store: stores[2], now: clock.now, immediately: true)
        let newID = try #require(rotated.change.promoted)
        let started = Date()
        func keyIDs() throws -> [String?] {
            try nodes.map { node in
                try DecodedToken(try #require(try node.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)).keyID
            }
        }
        while try keyIDs() != [newID, newID], Date().timeIntervalSince(started) < 10 { usleep(20_000) }
        #expect(try keyIDs() == [newID, newID])
        let took = Date().timeIntervalSince(started)
        #expect(took < 1.5, "took \(took) s")

        _ = try schedule.revoke(id: firstID, store: stores[2], now: clock.now)
        let revokedAt = Date()
        while try nodes.contains(where: { try $0.jwks()[firstID] != nil }), Date().timeIntervalSince(revokedAt) < 10 { usleep(20_000) }
        #expect(try nodes.allSatisfy { try $0.jwks()[firstID] == nil })
        #expect(Date().timeIntervalSince(revokedAt) < 1.5)
    }

    /// Behind a transaction-mode pooler without `database.listen` no change is announced: the nodes read the keys
    /// every 5 s (ten nodes: two reads a second).
    @Test func withoutAListenerTheNodesReadTheKeysEvery5Seconds() throws {
        let cluster = try PostgresClusterScope.current()
        let bouncer = try PgBouncer(inFrontOf: cluster)
        defer { bouncer.destroy() }
        let store = try PostgresStore(
            connectionString: bouncer.connectionString(database: try cluster.createDatabase()),
            poolSize: 1,
            transactionPooling: true
        )
        defer { store.close() }
        #expect(SigningKeyRing.refreshInterval(for: store) == SigningKeyRing.sharedRefreshInterval)
        #expect(SigningKeyRing.sharedRefreshInterval <= 5)
        #expect(SigningKeyRing.refreshInterval(for: nil) == SigningKeyRing.refreshInterval)
    }
}
