import Dispatch
import Foundation
import Synchronization
import SystemThreads

/// A background thread that runs `work` every `interval` seconds, or sooner when woken: the Apple work (code
/// exchanges, revocations), the signing-key rotation and the metadata refresh, never on a request's path. Started and
/// stopped by its owner; `stop` waits until the thread has finished its current round.
package final class PeriodicWorker: Sendable {
    private enum Phase { case idle, running, stopped }

    private let phase = Mutex(Phase.idle)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let name: String
    private let interval: @Sendable () -> TimeInterval
    private let work: @Sendable () -> Void

    /// `name` is the thread's (`passkeyd-apple`); `work` runs first at `start`, then every `interval` seconds.
    package convenience init(name: String, interval: TimeInterval, work: @escaping @Sendable () -> Void) {
        self.init(name: name, interval: { interval }, work: work)
    }

    /// As above, with the wait after each round asked of `interval` then (a schedule that depends on the node's state).
    package init(name: String, interval: @escaping @Sendable () -> TimeInterval, work: @escaping @Sendable () -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }

    /// Starts the thread; does nothing when it runs or was stopped, or when no thread can start (the system's limit).
    package func start() {
        let starting = phase.withLock { phase in
            guard phase == .idle else { return false }
            phase = .running
            return true
        }
        guard starting else { return }
        let started = NamedThread.startDetached(named: name) { [self] in
            while phase.withLock({ $0 == .running }) {
                work()
                _ = wakeUp.wait(timeout: .now() + interval())
            }
            finished.signal()
        }
        // No thread: as stopped, so that `stop` does not wait for one.
        if !started { phase.withLock { $0 = .stopped } }
    }

    /// Makes a sleeping thread run its next round now.
    package func wake() {
        wakeUp.signal()
    }

    /// Stops the thread and waits for it. Idempotent.
    package func stop() {
        if requestStop() { finished.wait() }
    }

    /// Tells the thread to finish after its current round, without waiting.
    /// - Returns: whether the thread was running.
    @discardableResult
    package func requestStop() -> Bool {
        let wasRunning = phase.withLock { phase in
            defer { phase = .stopped }
            return phase == .running
        }
        if wasRunning { wakeUp.signal() }
        return wasRunning
    }
}
