import Dispatch
import Foundation

/// SIGTERM and SIGINT stop the server; SIGHUP reloads it. The three are blocked before any thread starts
/// (`blockSignals`), so every thread inherits the block: a signal that arrives at any moment after, even while the
/// server is still starting, stays pending until `waitForTermination` takes it with `sigwait`. (Ignoring them and
/// waiting on Dispatch signal sources, as before, lost a SIGTERM sent right after start-up: it arrived while ignored,
/// before the source was registered, and the server ran on.)
enum SignalWaiter {
    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signalNumber) }
        return set
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and in every thread it starts from now on. Call first,
    /// before anything starts a thread.
    static func blockSignals() {
        var set = signals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Returns on SIGTERM or SIGINT. Each SIGHUP runs `reload` on a serial queue (one reload at a time, never on the
    /// thread that waits, so a slow reload does not delay a stop).
    static func waitForTermination(onHangUp reload: @escaping @Sendable () -> Void) {
        let reloads = DispatchQueue(label: "passkeyd.reload")
        var set = signals
        while true {
            var received: Int32 = 0
            guard sigwait(&set, &received) == 0 else { continue }
            guard received == SIGHUP else { return }
            reloads.async(execute: reload)
        }
    }
}
