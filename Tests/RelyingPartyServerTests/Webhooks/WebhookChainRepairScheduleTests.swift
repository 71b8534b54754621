import Foundation
import Testing

@testable import RelyingPartyServer

/// A node's first webhook worker repairs the last 10 minutes' chains at its first loop and every minute, and, while it
/// had activity in the last 10 seconds, the last 10 seconds' every second in between: a delivery left waiting by the
/// two-node chain race goes about a second late, not a minute
/// (`PostgresStoreTests.aFollowerAppendedWhileItsHeadEndedWaitsForARepair`); an idle worker makes only the full repair
/// (issue 42).
struct WebhookChainRepairScheduleTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private func at(_ offset: TimeInterval) -> Date { start.addingTimeInterval(offset) }

    @Test func recentChainsEverySecondWhileActiveEveryChainOfTheWindowEveryMinute() {
        var schedule = WebhookChainRepairSchedule()
        #expect(schedule.repairDue(at: at(0), lastActivity: at(0)) == at(-600), "the first loop: the whole window")
        #expect(schedule.repairDue(at: at(0.5), lastActivity: at(0.5)) == nil, "not twice within a second")
        #expect(schedule.repairDue(at: at(1), lastActivity: at(1)) == at(-9), "a second later: the last 10 s")
        #expect(schedule.repairDue(at: at(1.9), lastActivity: at(1.9)) == nil)
        #expect(schedule.repairDue(at: at(2.5), lastActivity: at(2.5)) == at(-7.5))
        #expect(schedule.repairDue(at: at(3), lastActivity: at(3)) == nil, "a second from the last repair, not from the start")
        var recent = 0
        for tick in 4..<60 where schedule.repairDue(at: at(Double(tick)), lastActivity: at(Double(tick))) == at(Double(tick) - 10) {
            recent += 1
        }
        #expect(recent == 56, "every second up to the minute")
        #expect(schedule.repairDue(at: at(60), lastActivity: at(60)) == at(-540), "a minute after the first: the whole window again")
        #expect(schedule.repairDue(at: at(60.5), lastActivity: at(60.5)) == nil, "which counts as the second's repair")
        #expect(schedule.repairDue(at: at(61), lastActivity: at(61)) == at(51))
    }

    @Test func anIdleWorkerMakesOnlyTheFullRepairEveryMinute() {
        var schedule = WebhookChainRepairSchedule()
        var repairs: [TimeInterval: Date] = [:]
        for tick in 0...180 {
            if let since = schedule.repairDue(at: at(Double(tick)), lastActivity: .distantPast) { repairs[Double(tick)] = since }
        }
        #expect(repairs == [0: at(-600), 60: at(-540), 120: at(-480), 180: at(-420)], "\(repairs.keys.sorted())")
    }

    @Test func aRecentRepairEverySecondForTenSecondsAfterTheLastActivity() {
        var schedule = WebhookChainRepairSchedule()
        #expect(schedule.repairDue(at: at(0), lastActivity: .distantPast) == at(-600))
        #expect(schedule.repairDue(at: at(5), lastActivity: .distantPast) == nil, "idle")
        // A write woke the worker at 20 s (the delivery it may have left waiting was queued just before).
        var recent: [TimeInterval] = []
        for tick in 20...40 where schedule.repairDue(at: at(Double(tick)), lastActivity: at(20)) == at(Double(tick) - 10) {
            recent.append(Double(tick))
        }
        #expect(recent == Array(20...30).map(Double.init), "at the activity and every second for 10 s, then none")
        // Activity with a worker round that is late (the back-off: rounds at 1, 2, 4 and 8 s after it).
        #expect(schedule.repairDue(at: at(48), lastActivity: at(40)) == at(38))
        #expect(schedule.repairDue(at: at(51), lastActivity: at(40)) == nil, "11 s after the activity")
    }
}
