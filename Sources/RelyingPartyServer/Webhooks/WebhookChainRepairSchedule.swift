import Foundation

/// When a node's first webhook worker repairs chains (`WebhookDeliveryStore.repairWebhookChains`), and how far back.
///
/// On PostgreSQL, a delivery appended on one node while another node ends the head of its chain can be left waiting
/// for nothing: the appender's statement still saw the head pending, and the statement ending the head ran before the
/// append was visible (`PostgresStoreTests.aFollowerAppendedWhileItsHeadEndedWaitsForARepair`). Such a delivery is
/// stuck from the moment it is queued, so a repair every second of what was queued in the last `recentWindow` finds it
/// about a second late, and reads only the recent waiting deliveries. A repair of the last `fullWindow` every
/// `fullInterval` catches anything a recent one missed (a node stopped between the two commits, a slow database).
struct WebhookChainRepairSchedule {
    static let recentInterval: TimeInterval = 1
    static let recentWindow: TimeInterval = 10
    static let fullInterval: TimeInterval = 60
    static let fullWindow: TimeInterval = 600

    private var lastRecent = Date.distantPast
    private var lastFull = Date.distantPast

    /// The queue time a repair at `now` reaches back to, when one is due; the first call is a full one.
    mutating func repairDue(at now: Date) -> Date? {
        if now.timeIntervalSince(lastFull) >= Self.fullInterval {
            lastFull = now
            lastRecent = now
            return now.addingTimeInterval(-Self.fullWindow)
        }
        if now.timeIntervalSince(lastRecent) >= Self.recentInterval {
            lastRecent = now
            return now.addingTimeInterval(-Self.recentWindow)
        }
        return nil
    }
}
