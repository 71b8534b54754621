import Synchronization

/// The webhook dispatcher in force, shared by the server (which starts, stops and replaces it on a reload) and the
/// features that wake its workers after a write (the admin service).
final class WebhookDispatcherInForce: Sendable {
    private let dispatcher: Mutex<WebhookDispatcher>

    init(_ dispatcher: WebhookDispatcher) {
        self.dispatcher = Mutex(dispatcher)
    }

    /// Runs `body` with the dispatcher held alone (to read it, or to replace it).
    func withLock<Result: Sendable, Failure: Error>(_ body: (inout WebhookDispatcher) throws(Failure) -> Result) throws(Failure) -> Result {
        try dispatcher.withLock { dispatcher throws(Failure) in try body(&dispatcher) }
    }

    /// Wakes the workers: a write may have appended events whose deliveries are due now.
    func wake() {
        withLock { $0 }.wake()
    }
}
