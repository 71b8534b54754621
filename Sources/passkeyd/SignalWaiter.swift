import Dispatch
import Foundation

/// Blocks until SIGTERM or SIGINT arrives, running a reload for each SIGHUP meanwhile.
enum SignalWaiter {
    /// Returns on SIGTERM or SIGINT. Each SIGHUP runs `reload` on a serial queue (one reload at a time, never on the
    /// thread that waits, so a slow reload does not delay a stop).
    static func waitForTermination(onHangUp reload: @escaping @Sendable () -> Void) {
        let semaphore = DispatchSemaphore(value: 0)
        let reloads = DispatchQueue(label: "passkeyd.reload")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: signalNumber == SIGHUP ? reloads : .global())
            source.setEventHandler(handler: signalNumber == SIGHUP ? reload : { semaphore.signal() })
            source.resume()
            sources.append(source)
        }
        semaphore.wait()
        sources.forEach { $0.cancel() }
    }
}
