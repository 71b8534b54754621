import Dispatch
import Foundation
import Storage
import Synchronization

/// The draws of one limit from the shared buckets (`SharedLimitStore`), batched as a group commit batches writes: a
/// request that finds no draw in flight sends its own at once; the requests that come while one is in flight wait,
/// and the first of them sends every waiting draw in one statement when it returns. Alone, a draw costs what it did;
/// under load, one database write serves as many requests as came during the previous one (issue 42: a limit shared
/// by ten nodes with a small budget draws one token per request). A failed statement fails the draws waiting behind it
/// too: the store is unusable, and their limiters decide alone (`SharedLimitOutage`) instead of waiting for another.
final class SharedLimitDrawQueue: Sendable {
    /// The most draws in one statement.
    static let maximumBatch = 64
    /// How long a request waits by default for the draws ahead of it and its own: the statement ahead (within its
    /// store's deadline, a second on PostgreSQL) then its own. Past it, the request's limiter decides alone.
    static let longestWait: TimeInterval = 2.5

    /// A waiting request. Its mutable fields are read and written under the queue's lock only.
    private final class Waiter: @unchecked Sendable {
        let draw: LimitDraw
        let now: Date
        let woken = DispatchSemaphore(value: 0)
        var outcome: Result<(taken: Int, left: Double), StorageError>?
        /// Chosen to send the next batch.
        var leads = false

        init(_ draw: LimitDraw, now: Date) {
            self.draw = draw
            self.now = now
        }
    }

    private struct State {
        var waiting: [Waiter] = []
        var isDrawing = false
    }

    private let store: any SharedLimitStore
    private let limit: String
    private let perSecond: Double
    private let burst: Double
    private let longestWait: TimeInterval
    private let state = Mutex(State())

    init(store: any SharedLimitStore, limit: String, perSecond: Double, burst: Double, longestWait: TimeInterval = longestWait) {
        self.store = store
        self.limit = limit
        self.perSecond = perSecond
        self.burst = burst
        self.longestWait = longestWait
    }

    /// How many draws wait behind the one in flight (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Takes up to `count` tokens from `key`'s bucket: how many were taken and the tokens the bucket holds after.
    func draw(key: [UInt8], count: Int, now: Date) throws(StorageError) -> (taken: Int, left: Double) {
        let waiter = Waiter(LimitDraw(key: key, count: count), now: now)
        let leadsNow = state.withLock { state in
            guard state.isDrawing else {
                state.isDrawing = true
                return true
            }
            state.waiting.append(waiter)
            return false
        }
        if !leadsNow, let outcome = try wait(waiter) { return try outcome.get() }
        return try lead(waiter)
    }

    /// Waits until `waiter` has its outcome (returned) or is chosen to send the next batch (nil).
    private func wait(_ waiter: Waiter) throws(StorageError) -> Result<(taken: Int, left: Double), StorageError>? {
        if waiter.woken.wait(timeout: .now() + longestWait) == .timedOut {
            let gaveUp = state.withLock { state in
                // Chosen or answered meanwhile: its signal has come or is coming.
                guard waiter.outcome == nil, !waiter.leads else { return false }
                // Still waiting, or in a batch in flight whose answer comes too late for it.
                state.waiting.removeAll { $0 === waiter }
                return true
            }
            if gaveUp { throw StorageError(.unavailable, "the shared limit's draw took too long", outage: .timedOut) }
            waiter.woken.wait()
        }
        return state.withLock { _ in waiter.leads ? nil : waiter.outcome }
    }

    /// Sends `leader`'s draw with those waiting, answers them, and chooses the first to come since to send the next;
    /// after a failure, answers every waiting draw with it.
    private func lead(_ leader: Waiter) throws(StorageError) -> (taken: Int, left: Double) {
        let batch = state.withLock { state in
            let followers = state.waiting.prefix(Self.maximumBatch - 1)
            state.waiting.removeFirst(followers.count)
            return [leader] + followers
        }
        let outcome: Result<[(taken: Int, left: Double)], StorageError>
        do throws(StorageError) {
            let drawn = try store.drawTokens(
                limit: limit,
                batch.map(\.draw),
                perSecond: perSecond,
                burst: burst,
                now: batch.map(\.now).max() ?? leader.now
            )
            guard drawn.count == batch.count else {
                throw StorageError(.unavailable, "the shared limit's draw answered \(drawn.count) of \(batch.count)")
            }
            outcome = .success(drawn)
        } catch {
            outcome = .failure(error)
        }
        let (answered, next) = state.withLock { state -> ([Waiter], Waiter?) in
            var answered = Array(batch.dropFirst())
            for (index, waiter) in batch.enumerated() {
                waiter.leads = false
                waiter.outcome = outcome.map { $0[index] }
            }
            if case .failure(let error) = outcome {
                for waiter in state.waiting { waiter.outcome = .failure(error) }
                answered += state.waiting
                state.waiting.removeAll()
            }
            guard !state.waiting.isEmpty else {
                state.isDrawing = false
                return (answered, nil)
            }
            let next = state.waiting.removeFirst()
            next.leads = true
            return (answered, next)
        }
        for waiter in answered { waiter.woken.signal() }
        next?.woken.signal()
        return try outcome.map { $0[0] }.get()
    }
}
