import CryptoCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BackgroundWork

/// Background threads carry names that `top -H`, `ps -L` and `perf` show. Foundation's `Thread.name` set before the
/// thread starts never reached the system on Linux, and set on a Foundation thread itself it was lost when the thread
/// ran before `start` had recorded it (the CI run of 2026-12-07 saw the name of the test's own thread): a name is set
/// on a plain POSIX thread, its first 15 bytes (Linux refuses a longer one whole).
/// Many threads start at once because the lost name was a race: with Foundation's threads, one of these two tests or
/// both failed in each of five runs.
@Suite struct ThreadNameTests {
    private static let count = 64

    @Test func periodicWorkersThreadsShowTheirNameCutTo15Bytes() throws {
        let seen = Names()
        let workers = (0..<Self.count).map { index in
            PeriodicWorker(name: "passkeyd-periodic-test", interval: 60) { seen.record(index) }
        }
        for worker in workers { worker.start() }
        seen.awaitCount(Self.count)
        for worker in workers { worker.stop() }
        #expect(seen.all.count == Self.count)
        #expect(seen.all.values.filter { $0 != "passkeyd-period" }.isEmpty, "\(Set(seen.all.values))")
    }

    @Test func outboxWorkersThreadsShowTheirNameCutTo15Bytes() throws {
        let seen = Names()
        let workers = (0..<Self.count).map { index in
            OutboxWorker(NamingOutbox(index: index, seen: seen), time: SystemTime(), random: SystemRandom())
        }
        for worker in workers { #expect(worker.start()) }
        seen.awaitCount(Self.count)
        for worker in workers { worker.stop() }
        #expect(seen.all.count == Self.count)
        #expect(seen.all.values.filter { $0 != "passkeyd-test-o" }.isEmpty, "\(Set(seen.all.values))")
    }

    /// The first system name each numbered thread saw itself under.
    private final class Names: Sendable {
        private let names = Mutex<[Int: String]>([:])

        func record(_ index: Int) {
            let name = SystemThreadName.current
            names.withLock { $0[index] = $0[index] ?? name }
        }

        var all: [Int: String] { names.withLock { $0 } }

        func awaitCount(_ count: Int) {
            let deadline = Date().addingTimeInterval(10)
            while all.count < count && Date() < deadline { usleep(10_000) }
        }
    }

    /// An outbox that never has a due row, recording the name of the thread that claims.
    private struct NamingOutbox: OutboxDelivery {
        static var threadName: String { "passkeyd-test-outbox" }
        let index: Int
        let seen: Names
        var ownerLabel: String { "test" }
        var concurrency: Int { 1 }
        var leaseDuration: TimeInterval { 10 }

        func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [Int] {
            seen.record(index)
            return []
        }

        func send(_ claim: Int, completion: @escaping @Sendable (Int) -> Void) { completion(claim) }
        func record(_ attempts: [Int], owner: String) {}
        mutating func keep(at now: Date, lastActivity: Date) {}
    }
}
