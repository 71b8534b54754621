import Synchronization

/// A value a reload (or a fresher metadata BLOB) replaces whole, shared by reference between the server and the
/// controllers that read it: each reader takes one consistent copy. `SettingsInForce` holds the reloadable settings,
/// `WebhookDispatcherInForce` the webhook dispatcher.
final class InForce<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// Runs `body` with the value held alone (to read several members as one copy, or to replace it).
    func withLock<Result: Sendable, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try value.withLock { value throws(Failure) in try body(&value) }
    }
}
