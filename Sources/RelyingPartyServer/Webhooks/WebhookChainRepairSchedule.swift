import Foundation

/// When a node's first webhook worker repairs chains (`WebhookDeliveryStore.repairWebhookChains`), and how far back.
///
/// On PostgreSQL, a delivery appended on one node while another node ends the head of its chain can be left waiting
/// for nothing: the appender's statement still saw the head pending, and the statement ending the head ran before the
/// append was visible (`PostgresStoreTests.aFollowerAppendedWhileItsHeadEndedWaitsForARepair`). Such a delivery is
/// stuck from the moment it is queued, and both nodes were just active: the appender wrote (a request's write wakes
/// every worker of its node) and the other one recorded the head's outcome. So while its worker had activity in the
/// last `recentWindow`, a node repairs every second what was queued in the last `recentWindow`: it finds such a
/// delivery about a second late, and reads only the recent waiting deliveries. An idle worker makes no recent repair
/// (issue 42: ten idle nodes each repairing at every claim cost more than their claims). A repair of the last
/// `fullWindow` every `fullInterval`, active or idle, catches anything a recent one missed (a node stopped between the
/// two commits, an append by no worker's node, a slow database).
struct WebhookChainRepairSchedule {
    static let recentInterval: TimeInterval = 1
    static let recentWindow: TimeInterval = 10
    static let fullInterval: TimeInterval = 60
    static let fullWindow: TimeInterval = 600

    private var lastRecent = Date.distantPast
    private var lastFull = Date.distantPast

    /// The queue time a repair at `now` reaches back to, when one is due; the first call is a full one. A recent one is
    /// due only while `lastActivity` (the worker's last wake by a write, claim of rows or recorded outcome) is at most
    /// `recentWindow` ago.
    mutating func repairDue(at now: Date, lastActivity: Date) -> Date? {
        if now.timeIntervalSince(lastFull) >= Self.fullInterval {
            lastFull = now
            lastRecent = now
            return now.addingTimeInterval(-Self.fullWindow)
        }
        if now.timeIntervalSince(lastActivity) <= Self.recentWindow, now.timeIntervalSince(lastRecent) >= Self.recentInterval {
            lastRecent = now
            return now.addingTimeInterval(-Self.recentWindow)
        }
        return nil
    }
}
