import Foundation

extension InMemoryStore {
    /// Memory has no schema to migrate: always at version 1 of 1.
    public func status(now: Date) throws(StorageError) -> StoreStatus {
        state.withLock { state in
            StoreStatus(
                schemaVersion: 1,
                latestSchemaVersion: 1,
                outstandingChallenges: state.challenges.values.count { now < $0.expiresAt && $0.ceremony != .spentAuthentication },
                liveSessions: state.sessions.values.count { now < $0.expiresAt }
            )
        }
    }

    /// Memory takes every write.
    public func probeWrite() throws(StorageError) {}
}
