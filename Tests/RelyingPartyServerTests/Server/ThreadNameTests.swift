import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BackgroundWork

/// Background threads carry names that `top -H`, `ps -L` and `perf` show. Foundation's `Thread.name` set before the
/// thread starts never reached the system on Linux; a name is set on the thread itself, its first 15 bytes (Linux
/// refuses a longer one whole).
@Suite struct ThreadNameTests {
    @Test func aPeriodicWorkersThreadShowsItsNameCutTo15Bytes() throws {
        let seen = Mutex<String?>(nil)
        let worker = PeriodicWorker(name: "passkeyd-periodic-test", interval: 60) {
            let name = SystemThreadName.current
            seen.withLock { $0 = $0 ?? name }
        }
        worker.start()
        let deadline = Date().addingTimeInterval(5)
        while seen.withLock({ $0 }) == nil && Date() < deadline { usleep(10_000) }
        worker.stop()
        #expect(seen.withLock { $0 } == "passkeyd-period")
    }
}
