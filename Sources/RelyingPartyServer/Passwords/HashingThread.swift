import Foundation
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// A detached thread of its own for one long computation, by default at the scheduler's idle policy (`SCHED_IDLE`,
/// `passwords.hashing: idle`): Linux preempts it for any thread of another policy the moment that one wakes, and gives
/// it a core only when no such thread wants one. A password hash is the server's one computation of many milliseconds
/// (15 ms of PBKDF2, more for bcrypt or Argon2): with guesses reaching a hash 60 times a second on two cores, the
/// genuine sign-ins' p99 was 5.3–8.9 ms with hashes at the default policy and 2.8–3.9 ms at the idle one (issue 44,
/// `bench/runs/2026-12-07-idle-hashing.md`). Lowering one's own policy needs no privilege; where it is refused (a
/// filter on the system call), the work runs at the default policy.
enum HashingThread {
    /// Runs `body` on a new detached thread, at the idle policy when `idle`; false, and `body` not run, when no thread
    /// could start.
    static func start(idle: Bool, _ body: @escaping @Sendable () -> Void) -> Bool {
        NamedThread.startDetached(named: "passkeyd-hash") {
            if idle { lowerPolicy() }
            body()
        }
    }

    /// Moves the calling thread to `SCHED_IDLE` (Linux's 5; the C library defines it for GNU sources only).
    private static func lowerPolicy() {
        var parameter = sched_param(sched_priority: 0)
        _ = pthread_setschedparam(pthread_self(), 5, &parameter)
    }
}
