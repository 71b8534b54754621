/// The webhook dispatcher in force: the server starts, stops and replaces it on a reload; the admin service wakes it.
typealias WebhookDispatcherInForce = InForce<WebhookDispatcher>

extension InForce where Value == WebhookDispatcher {
    /// Wakes the workers: a write may have appended events whose deliveries are due now.
    func wake() {
        withLock { $0 }.wake()
    }
}
