import Foundation

/// What a store says about itself in one round trip: for `/readyz` (it answers, its schema is the one this build
/// writes) and for the metrics (challenges outstanding, sessions alive).
public struct StoreStatus: Sendable, Equatable {
    /// The schema version the database is at, and the latest this build knows (equal once migrated).
    public var schemaVersion: Int
    public var latestSchemaVersion: Int
    /// Stored challenges issued and not yet used or expired at the time asked. A spent sealed challenge
    /// (`CeremonyKind.spentAuthentication`) is not one, and a sealed one is stored only once it is spent.
    public var outstandingChallenges: Int
    /// Sessions not yet expired at the time asked.
    public var liveSessions: Int

    public init(schemaVersion: Int, latestSchemaVersion: Int, outstandingChallenges: Int, liveSessions: Int) {
        self.schemaVersion = schemaVersion
        self.latestSchemaVersion = latestSchemaVersion
        self.outstandingChallenges = outstandingChallenges
        self.liveSessions = liveSessions
    }

    /// True when the database is at the schema this build writes.
    public var isMigrated: Bool { schemaVersion == latestSchemaVersion }
}

/// A store that reports its `StoreStatus`.
public protocol StoreStatusReporting: Sendable {
    /// The store's status at `now`, read in one statement (one round trip); `storage.unavailable` when the store does
    /// not answer.
    func status(now: Date) throws(StorageError) -> StoreStatus

    /// Writes durably, changing nothing: what a full disk, a read-only database or a lost write permission refuses
    /// (SQLite rewrites its schema version in a write transaction, PostgreSQL updates its schema row to itself). For
    /// `/readyz`, which runs it at most every few seconds. Throws `storage.unavailable` (with its outage) when refused.
    func probeWrite() throws(StorageError)
}
