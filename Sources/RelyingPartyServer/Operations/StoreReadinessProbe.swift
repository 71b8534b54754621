import Dispatch
import Foundation
import Storage
import Synchronization

/// The store's checks of `/readyz` (`store`, `migrations`, `storeWrite`), answered within `deadline` even when the
/// database does not answer at all: they run on another thread, one run at a time, and every probe waits at most
/// `deadline` for the run in flight (starting one when none is). The write (`StoreStatusReporting.probeWrite`, a tiny
/// durable write) is made at most every `writeInterval`; the probes in between share its outcome.
final class StoreReadinessProbe: Sendable {
    /// The most often the store is written for readiness.
    static let writeInterval: TimeInterval = 5
    /// How long a probe waits for the store's answer.
    static let deadline = DispatchTimeInterval.seconds(2)

    private struct State {
        /// The run in flight, if any; probes wait for it rather than starting another.
        var running: DispatchGroup?
        /// The last run's checks.
        var checks: [(name: String, state: String)] = []
        /// The last write and its outcome.
        var lastWrite: (at: Date, state: String)?
    }

    private let state = Mutex(State())

    /// The store's checks, in order; each "ok" or what failed (a storage code, with the outage the driver could tell:
    /// `storage.unavailable (noSpace)`), and `storage.unavailable (timedOut)` for a store that did not answer in time.
    func checks(of store: any PasskeyStore, now: Date) -> [(name: String, state: String)] {
        let running = state.withLock { state -> DispatchGroup in
            if let running = state.running { return running }
            let group = DispatchGroup()
            group.enter()
            state.running = group
            DispatchQueue.global().async {
                let checks = self.run(store, now: now)
                self.state.withLock { state in
                    state.checks = checks
                    state.running = nil
                }
                group.leave()
            }
            return group
        }
        guard running.wait(timeout: .now() + Self.deadline) == .success else {
            return [("store", "storage.unavailable (timedOut)"), ("migrations", "unknown"), ("storeWrite", "unknown")]
        }
        return state.withLock { $0.checks }
    }

    private func run(_ store: any PasskeyStore, now: Date) -> [(name: String, state: String)] {
        let status: StoreStatus
        do throws(StorageError) {
            status = try store.status(now: now)
        } catch {
            return [("store", Self.describe(error)), ("migrations", "unknown"), ("storeWrite", "unknown")]
        }
        let migrations = status.isMigrated ? "ok" : "schema \(status.schemaVersion) of \(status.latestSchemaVersion)"
        return [("store", "ok"), ("migrations", migrations), ("storeWrite", write(store, now: now))]
    }

    private func write(_ store: any PasskeyStore, now: Date) -> String {
        if let last = state.withLock({ $0.lastWrite }), last.at <= now, now.timeIntervalSince(last.at) < Self.writeInterval {
            return last.state
        }
        let outcome: String
        do throws(StorageError) {
            try store.probeWrite()
            outcome = "ok"
        } catch {
            outcome = Self.describe(error)
        }
        state.withLock { $0.lastWrite = (now, outcome) }
        return outcome
    }

    /// The storage code, with the outage when the driver could tell it.
    private static func describe(_ error: StorageError) -> String {
        error.code.rawValue + (error.outage.map { " (\($0.rawValue))" } ?? "")
    }
}
