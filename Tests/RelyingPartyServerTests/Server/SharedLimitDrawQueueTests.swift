import Dispatch
import Foundation
import Storage
import Synchronization
import Testing

@testable import RateLimiting

/// Issue 42: with a small budget shared by ten nodes every limited request draws from the database; the draws of the
/// requests that ask while one is in flight go in one statement, as a group commit does.
@Suite struct SharedLimitDrawQueueTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Buckets that record each statement's draws, hold the first until `release`, and fail while `failing`.
    final class GatedBuckets: SharedLimitStore {
        let batches = Mutex<[[LimitDraw]]>([])
        let failing = Atomic(false)
        let entered = DispatchSemaphore(value: 0)
        private let gate = DispatchSemaphore(value: 0)
        private let gated = Atomic(true)

        func release() { gate.signal() }

        func drawTokens(
            limit: String,
            _ draws: [LimitDraw],
            perSecond: Double,
            burst: Double,
            now: Date
        ) throws(StorageError) -> [(taken: Int, left: Double)] {
            batches.withLock { $0.append(draws) }
            entered.signal()
            if gated.exchange(false, ordering: .relaxed) { gate.wait() }
            if failing.load(ordering: .relaxed) { throw StorageError(.unavailable, "refused", outage: .unreachable) }
            return draws.enumerated().map { (index, draw) in (draw.count, Double(index)) }
        }

        func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int { 0 }
    }

    /// Runs `count` draws on threads of their own after the first has entered the store and the others wait behind
    /// it; returns each draw's outcome by its number once the gate opens.
    static func drawBehindAHeldOne(
        _ count: Int,
        buckets: GatedBuckets,
        queue: SharedLimitDrawQueue
    ) -> [Int: Result<(taken: Int, left: Double), StorageError>] {
        let outcomes = Mutex<[Int: Result<(taken: Int, left: Double), StorageError>]>([:])
        let done = DispatchGroup()
        // Threads of their own: Dispatch's global queue runs as many blocked blocks at once as there are cores.
        func start(_ number: Int) {
            done.enter()
            Thread {
                defer { done.leave() }
                let outcome: Result<(taken: Int, left: Double), StorageError>
                do throws(StorageError) {
                    outcome = .success(try queue.draw(key: [UInt8(number)], count: number, now: now))
                } catch {
                    outcome = .failure(error)
                }
                outcomes.withLock { $0[number] = outcome }
            }.start()
        }
        start(1)
        buckets.entered.wait()
        for number in 2...count { start(number) }
        // The others wait behind the held draw (not a guess at how long their threads take to get there: on a loaded
        // machine a late one would go in a statement of its own).
        let deadline = Date().addingTimeInterval(10)
        while queue.waitingCount < count - 1 && Date() < deadline { usleep(1_000) }
        #expect(queue.waitingCount == count - 1)
        buckets.release()
        done.wait()
        return outcomes.withLock { $0 }
    }

    @Test func drawsThatComeWhileOneIsInFlightGoInOneStatement() throws {
        let buckets = GatedBuckets()
        let queue = SharedLimitDrawQueue(store: buckets, limit: "address", perSecond: 1, burst: 100)
        let outcomes = Self.drawBehindAHeldOne(6, buckets: buckets, queue: queue)
        let batches = buckets.batches.withLock { $0 }
        #expect(batches.map(\.count) == [1, 5], "the held draw alone, then the five that came meanwhile")
        #expect(Set(batches[1].map(\.key)) == Set((2...6).map { [UInt8($0)] }))
        for number in 1...6 {
            #expect((try? outcomes[number]?.get().taken) == number, "each draw gets its own answer")
        }
        // Alone again: a draw is sent at once, by itself.
        #expect(try queue.draw(key: [9], count: 1, now: Self.now).taken == 1)
        #expect(buckets.batches.withLock { $0.map(\.count) } == [1, 5, 1])
    }

    /// The draws waiting behind a failed statement fail with it, without a statement of their own: the store is
    /// unusable, and each limiter decides alone at once instead of waiting another deadline.
    @Test func aFailedStatementFailsEveryDrawInItAndBehindIt() throws {
        let buckets = GatedBuckets()
        buckets.failing.store(true, ordering: .relaxed)
        let queue = SharedLimitDrawQueue(store: buckets, limit: "address", perSecond: 1, burst: 100)
        let outcomes = Self.drawBehindAHeldOne(4, buckets: buckets, queue: queue)
        #expect(outcomes.count == 4)
        for outcome in outcomes.values {
            guard case .failure(let error) = outcome else {
                Issue.record("a draw succeeded on failing buckets")
                continue
            }
            #expect(error.code == .unavailable && error.outage == .unreachable)
        }
        #expect(buckets.batches.withLock { $0.count } == 1)
        buckets.failing.store(false, ordering: .relaxed)
        #expect(try queue.draw(key: [9], count: 2, now: Self.now).taken == 2, "the queue draws again after a failure")
    }

    /// A request never waits longer than `longestWait` behind a statement that does not return: it gives up (its
    /// limiter then decides alone), and the queue serves the requests after it once the statement returns.
    @Test func aDrawBehindAStuckStatementGivesUpInTime() throws {
        let buckets = GatedBuckets()
        let queue = SharedLimitDrawQueue(store: buckets, limit: "address", perSecond: 1, burst: 100, longestWait: 0.3)
        let held = DispatchGroup()
        held.enter()
        Thread {
            _ = try? queue.draw(key: [1], count: 1, now: Self.now)
            held.leave()
        }.start()
        buckets.entered.wait()
        let started = ContinuousClock.now
        var failure: StorageError?
        do throws(StorageError) {
            _ = try queue.draw(key: [2], count: 1, now: Self.now)
        } catch {
            failure = error
        }
        let waited = started.duration(to: .now)
        #expect(failure?.code == .unavailable && failure?.outage == .timedOut, "\(String(describing: failure))")
        #expect(waited >= .milliseconds(300) && waited < .milliseconds(1000), "\(waited)")
        buckets.release()
        held.wait()
        #expect(try queue.draw(key: [3], count: 1, now: Self.now).taken == 1)
        #expect(buckets.batches.withLock { $0.map { $0.map(\.key) } } == [[[1]], [[3]]], "the draw that gave up was never sent")
    }
}
