import Dispatch
import Foundation

/// Blocks until SIGTERM or SIGINT arrives.
enum SignalWaiter {
    static func waitForTermination() {
        let semaphore = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { semaphore.signal() }
            source.resume()
            sources.append(source)
        }
        semaphore.wait()
        sources.forEach { $0.cancel() }
    }
}
