import Foundation
import Testing

@testable import RelyingPartyServer

/// A node's first webhook worker repairs the last 10 minutes' chains at its first loop and every minute, and the last
/// 10 seconds' every second in between: a delivery left waiting by the two-node chain race goes about a second late,
/// not a minute (`PostgresStoreTests.aFollowerAppendedWhileItsHeadEndedWaitsForARepair`).
struct WebhookChainRepairScheduleTests {
    @Test func recentChainsEverySecondEveryChainOfTheWindowEveryMinute() {
        var schedule = WebhookChainRepairSchedule()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let at = { (offset: TimeInterval) in start.addingTimeInterval(offset) }
        #expect(schedule.repairDue(at: at(0)) == at(-600), "the first loop: the whole window")
        #expect(schedule.repairDue(at: at(0.5)) == nil, "not twice within a second")
        #expect(schedule.repairDue(at: at(1)) == at(-9), "a second later: the last 10 s")
        #expect(schedule.repairDue(at: at(1.9)) == nil)
        #expect(schedule.repairDue(at: at(2.5)) == at(-7.5))
        #expect(schedule.repairDue(at: at(3)) == nil, "a second from the last repair, not from the start")
        var recent = 0
        for tick in 4..<60 where schedule.repairDue(at: at(Double(tick))) == at(Double(tick) - 10) { recent += 1 }
        #expect(recent == 56, "every second up to the minute")
        #expect(schedule.repairDue(at: at(60)) == at(-540), "a minute after the first: the whole window again")
        #expect(schedule.repairDue(at: at(60.5)) == nil, "which counts as the second's repair")
        #expect(schedule.repairDue(at: at(61)) == at(51))
    }
}
