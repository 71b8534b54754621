import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Issue 42: `passkeyd restore --postgres-restored` ends every live session in one transaction, an event each, so its
/// deadline grows with the sessions, as an import's does. Before, the whole transaction ran under one fixed deadline
/// (600 s), which a large enough database could not meet. Here the allowances are small, so that a thousand sessions
/// need the per-session part.
@Suite("PostgreSQL restore deadline", PostgresClusterScope())
struct PostgresRestoreDeadlineTests {
    private static let sessionCount = 1_000

    /// A database with `sessionCount` live sessions of one account.
    private func restored() throws -> PostgresStore {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.transaction { transaction throws(StorageError) in
            for number in 0..<Self.sessionCount {
                var session = StoreSamples.session(1, owner: 1)
                let bytes = withUnsafeBytes(of: UInt32(number).bigEndian, Array.init)
                session.tokenHash = [UInt8](repeating: 0x33, count: 28) + bytes
                session.id = [UInt8](repeating: 0x44, count: 12) + bytes
                try transaction.insertSession(session)
            }
        }
        return store
    }

    private func end(_ store: PostgresStore, perSession: Duration) throws(StorageError) -> RestoreRevocations {
        var described = 0
        return try store.endGrantsAfterRestore(
            now: StoreSamples.now,
            event: { _ in
                described += 1
                return StoreSamples.event(described, owner: 1, type: "session.revoked")
            },
            base: .milliseconds(20),
            perSession: perSession
        )
    }

    /// 20 ms does not hold a thousand events; 20 ms plus 5 ms a session does.
    @Test func endingTheGrantsGetsTimeForEachSession() throws {
        let store = try restored()
        defer { store.close() }
        #expect(try end(store, perSession: .milliseconds(5)).sessions == Self.sessionCount)
        #expect(try store.events(after: 0, limit: 2 * Self.sessionCount).filter { $0.type == "session.revoked" }.count == Self.sessionCount)
    }

    /// Past its allowance the transaction still ends, and nothing of it is kept: every session stays, to be ended by
    /// the command run again.
    @Test func endingTheGrantsPastItsAllowanceRollsBack() throws {
        let store = try restored()
        defer { store.close() }
        let started = ContinuousClock.now
        do {
            _ = try end(store, perSession: .zero)
            Issue.record("\(Self.sessionCount) sessions were ended in 20 ms")
        } catch {
            #expect(error.code == .unavailable, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(5), "the transaction ended by its deadline")
        #expect(try store.session(tokenHash: [UInt8](repeating: 0x33, count: 28) + [0, 0, 0, 7], now: StoreSamples.now) != nil)
        #expect(try end(store, perSession: .milliseconds(5)).sessions == Self.sessionCount)
    }
}
