import CryptoCore
import Foundation
import Storage
import Synchronization

/// The passkeys of the sign-ins this node stored, as it stored them, by credential ID, so that the next sign-in with
/// one is verified without reading it again: on PostgreSQL the read was one of a sign-in's two round trips. What a
/// kept record may have gone stale in is re-checked by the sign-in's final write, atomically (`SignInExpectation`:
/// the key, the backup-eligibility flag and the user handle the verification used; the owner; the counter; the owner
/// not disabled), which also answers the owner's record as stored: nothing the node answers comes from this cache. A
/// passkey deleted or moved on this node is forgotten at once (`AccountService.forget(passkey:)`).
/// Bounded: when full it is emptied and refilled by use; a record is used for `lifetime` after it was kept at most.
package final class SignInRecordCache: Sendable {
    private struct Entry {
        let record: CredentialRecord
        let keptAt: Date
    }

    private let entries = Mutex<[[UInt8]: Entry]>([:])
    private let capacity: Int
    private let lifetime: TimeInterval
    private let time: any TimeSource

    package init(time: any TimeSource, capacity: Int = 50_000, lifetime: TimeInterval = 600) {
        self.time = time
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The credential as kept at most `lifetime` ago.
    package func record(for credentialID: [UInt8]) -> CredentialRecord? {
        let now = time.now
        return entries.withLock { entries in
            guard let entry = entries[credentialID] else { return nil }
            guard now.timeIntervalSince(entry.keptAt) < lifetime, entry.keptAt <= now else {
                entries[credentialID] = nil
                return nil
            }
            return entry.record
        }
    }

    /// Keeps `record`, as stored now.
    package func keep(_ record: CredentialRecord) {
        let entry = Entry(record: record, keptAt: time.now)
        entries.withLock { entries in
            if entries.count >= capacity, entries[record.id] == nil { entries.removeAll(keepingCapacity: true) }
            entries[record.id] = entry
        }
    }

    /// Forgets the credential: its next sign-in reads it.
    package func remove(_ credentialID: [UInt8]) {
        _ = entries.withLock { $0.removeValue(forKey: credentialID) }
    }
}
