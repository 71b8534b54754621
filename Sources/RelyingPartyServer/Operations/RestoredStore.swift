import AccountEvents
import CryptoCore
import Foundation
import Storage

/// What `passkeyd restore` does to a store it put back from a backup, with the server's events: the grants the
/// backup holds are ended (`RestorableStore.endGrantsAfterRestore`), each live session with its `session.revoked`
/// event (reason `restore`), since any of them may have been revoked after the backup was taken.
public enum RestoredStore {
    public static func endGrants(_ store: any RestorableStore, now: Date, random: any RandomSource) throws(StorageError) -> RestoreRevocations {
        try store.endGrantsAfterRestore(now: now) { session in
            AccountEvent.sessionRevoked(session, reason: .restore).event(at: now, random: random)
        }
    }
}
