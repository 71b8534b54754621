import Foundation
import Storage
import Synchronization

/// `/readyz`'s write check: a tiny durable write (`StoreStatusReporting.probeWrite`) at most every `interval`, its
/// outcome shared by the probes in between and by concurrent ones, which wait for the one in flight rather than
/// writing too.
final class StoreWriteProbe: Sendable {
    /// The most often the store is written for readiness.
    static let interval: TimeInterval = 5

    private let last = Mutex<(at: Date, state: String)?>(nil)

    /// "ok", or what refused the write: the storage code and, when the driver could tell, its outage
    /// (`storage.unavailable (noSpace)`).
    func state(of store: any PasskeyStore, now: Date) -> String {
        last.withLock { last in
            if let last, last.at <= now, now.timeIntervalSince(last.at) < Self.interval { return last.state }
            let state: String
            do throws(StorageError) {
                try store.probeWrite()
                state = "ok"
            } catch {
                state = error.code.rawValue + (error.outage.map { " (\($0.rawValue))" } ?? "")
            }
            last = (now, state)
            return state
        }
    }
}
