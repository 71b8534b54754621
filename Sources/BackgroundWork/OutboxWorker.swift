import CryptoCore
import Dispatch
import Foundation
import Synchronization
import SystemThreads

/// The thread of a durable outbox's worker (`OutboxDelivery`: the mail outbox, each webhook endpoint). It claims due
/// rows, keeps up to `concurrency` sends in flight, records their outcomes in batches, and claims again: when an
/// outcome came in, when the server wrote something (`wake`, coalesced: at most one claim per
/// `minimumClaimInterval`), and every `pollInterval` (retries that came due, rows of a node that stopped), an interval
/// that doubles with each claim in a row that found nothing, woken by nothing, up to `idlePollInterval`: an idle
/// node claims every 16 s, not every second, and a retry is sent at most as late as the time since the last activity
/// (a retry due 1 s after a failed send goes then; one due 5 s after, at 8 s; one due minutes later, within 16 s).
/// Ten idle nodes with one webhook endpoint each claimed 75 times a minute with 8 s, the larger part of the
/// database's idle transactions (issue 42). Each claim
/// is leased to `owner`, so several nodes never send one row at once, and a node killed mid-send leaves its claims to
/// end, after which another worker sends the rows again: at least once. `stop` stops claiming, waits for the sends in
/// flight (each ends within its deadline), records them and ends the thread. Never on a request path.
///
/// `PeriodicWorker` (a round every interval, stopped between rounds) and `BackgroundRefresh` (a cache's fetch
/// schedule, no thread) are not outbox workers: neither claims, leases nor drains sends in flight.
package final class OutboxWorker<Delivery: OutboxDelivery>: Sendable {
    package static var pollInterval: TimeInterval { 1 }
    package static var minimumClaimInterval: TimeInterval { 0.01 }
    /// The longest interval between two claims while nothing happens.
    package static var idlePollInterval: TimeInterval { 16 }

    /// The interval after `emptyClaims` claims in a row that found nothing: `pollInterval`, doubled from the second
    /// one on, at most `idlePollInterval`.
    package static func pollInterval(afterEmptyClaims emptyClaims: Int) -> TimeInterval {
        min(idlePollInterval, pollInterval * Double(1 << min(max(emptyClaims - 1, 0), 16)))
    }

    private struct State {
        package var stopping = false
        package var wakeRequested = false
        /// Sends started and not yet completed, and the completed ones not yet recorded: under the lock of `stopping`,
        /// so that the thread ends only once every send it started is recorded.
        package var inFlight = 0
        package var completed: [Delivery.Attempt] = []
    }

    package let delivery: Delivery
    /// The lease owner of this worker's claims: random per start, so that a restarted node never records an outcome
    /// for a claim of its previous life.
    package let owner: String
    private let time: any TimeSource
    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic(false)

    package init(_ delivery: Delivery, time: any TimeSource, random: any RandomSource) {
        self.delivery = delivery
        self.time = time
        owner = Hex.encode(random.bytes(count: 8)) + "/" + delivery.ownerLabel
    }

    package var leaseDuration: TimeInterval { delivery.leaseDuration }

    /// Starts the thread, once; whether this call started it.
    @discardableResult
    package func start() -> Bool {
        guard !started.exchange(true, ordering: .relaxed) else { return false }
        let running = NamedThread.startDetached(named: Delivery.threadName) { [self] in
            run()
            finished.signal()
        }
        // No thread (the system's limit): unstarted, so that `stop` does not wait for one and a later `start` tries again.
        if !running { started.store(false, ordering: .relaxed) }
        return running
    }

    /// Something was written: claim soon.
    package func wake() {
        let first = state.withLock { state in
            defer { state.wakeRequested = true }
            return !state.wakeRequested
        }
        if first { signal.signal() }
    }

    /// Stops claiming, waits for the sends in flight (each ends within its deadline), records them and ends the thread.
    package func stop() {
        guard started.load(ordering: .relaxed) else { return }
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        signal.signal()
        finished.wait()
    }

    private func run() {
        var delivery = self.delivery
        var lastClaim = Date.distantPast
        var emptyClaims = 0
        var lastActivity = Date.distantPast
        while true {
            let (completed, stopping, woken, inFlight) = state.withLock { state in
                defer {
                    state.completed = []
                    state.wakeRequested = false
                }
                return (state.completed, state.stopping, state.wakeRequested, state.inFlight)
            }
            if !completed.isEmpty { delivery.record(completed, owner: owner) }
            if stopping && inFlight == 0 { return }
            var more = false
            let now = time.now
            if woken || !completed.isEmpty { lastActivity = now }
            if !stopping { delivery.keep(at: now, lastActivity: lastActivity) }
            let free = delivery.concurrency - inFlight
            let interval = Self.pollInterval(afterEmptyClaims: emptyClaims)
            if !stopping, free > 0, woken || !completed.isEmpty || now.timeIntervalSince(lastClaim) >= interval {
                let sinceLast = now.timeIntervalSince(lastClaim)
                if sinceLast < Self.minimumClaimInterval { Thread.sleep(forTimeInterval: Self.minimumClaimInterval - sinceLast) }
                lastClaim = time.now
                let claimed = delivery.claim(owner: owner, now: lastClaim, leaseUntil: lastClaim.addingTimeInterval(leaseDuration), limit: free)
                for claim in claimed { send(claim, by: delivery) }
                if !claimed.isEmpty { lastActivity = lastClaim }
                more = claimed.count == free
                emptyClaims = claimed.isEmpty && !woken && completed.isEmpty && inFlight == 0 ? emptyClaims + 1 : 0
            }
            let wait = more ? Self.minimumClaimInterval : Self.pollInterval(afterEmptyClaims: emptyClaims)
            _ = signal.wait(timeout: .now() + wait)
        }
    }

    private func send(_ claim: Delivery.Claim, by delivery: Delivery) {
        state.withLock { $0.inFlight += 1 }
        delivery.send(claim) { [self] attempt in
            state.withLock { state in
                state.inFlight -= 1
                state.completed.append(attempt)
            }
            signal.signal()
        }
    }
}
