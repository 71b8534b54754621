import Storage

extension NodeWork {
    /// Makes the store's webhook subscriptions the configured endpoints and starts their delivery threads.
    public func startWebhooks() throws(StorageError) {
        try webhooks.withLock { $0 }.start()
    }

    /// Stops the delivery threads, each after recording its attempts in flight (at most one attempt timeout).
    public func stopWebhooks() {
        webhooks.withLock { $0 }.stop()
    }
}
