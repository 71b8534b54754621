import CryptoCore
import Foundation
import Synchronization
import Testing

@testable import BackgroundWork

/// Issue 42: an idle outbox worker (a webhook endpoint's, the mail outbox's) claims less and less often, up to every
/// `idlePollInterval` (16 s; 8 s before the last round), instead of every second on every node; a write (`wake`) or an outcome claims at once.
@Suite struct OutboxWorkerIdleTests {
    /// An outbox that never has a due row, counting the claims.
    private struct EmptyOutbox: OutboxDelivery {
        static var threadName: String { "passkeyd-test-outbox" }
        let claims: Claims
        var ownerLabel: String { "test" }
        var concurrency: Int { 1 }
        var leaseDuration: TimeInterval { 10 }

        func claim(owner: String, now: Date, leaseUntil: Date, limit: Int) -> [Int] {
            claims.add(at: now)
            return []
        }

        func send(_ claim: Int, completion: @escaping @Sendable (Int) -> Void) { completion(claim) }
        func record(_ attempts: [Int], owner: String) {}
        mutating func keep(at now: Date, lastActivity: Date) {}
    }

    private final class Claims: Sendable {
        private let times = Mutex<[Date]>([])
        func add(at time: Date) { times.withLock { $0.append(time) } }
        var all: [Date] { times.withLock { $0 } }
    }

    @Test func theIntervalDoublesWhileNothingHappensUpTo16Seconds() {
        let intervals = (0...7).map { OutboxWorker<EmptyOutbox>.pollInterval(afterEmptyClaims: $0) }
        #expect(intervals == [1, 1, 2, 4, 8, 16, 16, 16])
    }

    @Test func anIdleWorkerClaimsFourTimesIn8SecondsAndAtOnceWhenWoken() throws {
        let claims = Claims()
        let worker = OutboxWorker(EmptyOutbox(claims: claims), time: SystemTime(), random: SystemRandom())
        let started = Date()
        worker.start()
        defer { worker.stop() }
        Thread.sleep(forTimeInterval: 7.5)
        // At 0, 1, 3 and 7 s (the last one later on a loaded machine); every second before (8 claims).
        let idle = claims.all.count
        #expect((3...4).contains(idle), "\(claims.all.map { $0.timeIntervalSince(started) })")
        worker.wake()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(claims.all.count == idle + 1, "a write is claimed at once")
        // Woken, it starts again from one claim a second.
        Thread.sleep(forTimeInterval: 1.2)
        #expect(claims.all.count == idle + 2)
    }
}
