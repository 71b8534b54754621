import AccountEvents
import CryptoCore
import Foundation
import Storage
import StorageSQLite
import Testing

@testable import RelyingPartyServer
@testable import Webhooks

/// Issue 42: after a SQLite WAL corruption the outbox's numbers started again where the data rolled back to, and 17
/// `webhook-id`s (`evt_<number>`) were sent again for *different* events, which a receiver that drops repeats by
/// `webhook-id` would have discarded. A restore from a backup does the same; here the database is copied, written on,
/// and the copy put back. The sequence numbers repeat (the mechanism), the `webhook-id`s do not.
struct WebhookIDRollbackTests {
    /// Appends a `user.created` of a new account per element of `names` and claims their deliveries: each claimed
    /// event's sequence number, and the `webhook-id` its delivery is sent with.
    static func appendAndClaim(_ count: Int, to store: SQLiteStore, at now: Date) throws -> [(sequence: Int64, webhookID: String, body: [UInt8])] {
        let random = SystemRandom()
        try store.transaction { transaction throws(StorageError) in
            for _ in 0..<count {
                try transaction.appendEvent(
                    AccountEvent.userCreated(userID: random.bytes(count: 32), method: .passkey).event(at: now, random: random)
                )
            }
        }
        let claimed = try store.claimWebhookDeliveries(
            endpointID: "receiver",
            owner: "worker",
            now: now.addingTimeInterval(1),
            leaseUntil: now.addingTimeInterval(60),
            limit: 100
        )
        return claimed.map { ($0.event.id, WebhookMessage($0.event).id, WebhookMessage($0.event).body) }
    }

    @Test func aDatabaseRestoredFromACopySendsNoWebhookIDAgain() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/passkeyd.sqlite"
        let backup = folder.path + "/backup.sqlite"
        let now = Date(timeIntervalSince1970: 1_796_040_061)
        var store = try SQLiteStore(path: path)
        try store.transaction { transaction throws(StorageError) in
            try transaction.setWebhookSubscription(WebhookSubscription(endpointID: "receiver", eventTypes: nil))
        }
        let kept = try Self.appendAndClaim(2, to: store, at: now)
        store.close()
        try FileManager.default.copyItem(atPath: path, toPath: backup)

        store = try SQLiteStore(path: path)
        let lost = try Self.appendAndClaim(3, to: store, at: now.addingTimeInterval(10))
        store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: path)

        store = try SQLiteStore(path: path)
        defer { store.close() }
        let after = try Self.appendAndClaim(3, to: store, at: now.addingTimeInterval(20))
        #expect(lost.count == 3 && after.count == 3)
        // The rollback: the numbers of the lost events are handed out again, to other events.
        #expect(Set(after.map(\.sequence)) == Set(lost.map(\.sequence)))
        #expect(Set(after.map(\.body)).isDisjoint(with: Set(lost.map(\.body))))
        // No webhook-id is reused for a different event.
        let sent = kept + lost + after
        #expect(Set(sent.map(\.webhookID)).count == sent.count, "\(sent.map(\.webhookID))")
        #expect(sent.allSatisfy { $0.webhookID.hasPrefix("evt_") && UUID(canonicalText: String($0.webhookID.dropFirst(4))) != nil })
    }
}
