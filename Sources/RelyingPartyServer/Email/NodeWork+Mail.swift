extension NodeWork {
    /// Starts the mail outbox's sending thread (nothing without `email`).
    public func startMail() {
        guard let mailWorker, mailWorker.start() else { return }
        log("email: sending through \(mailWorker.delivery.client.relayDescription)")
    }

    /// Stops the sending thread after the send in flight (at most its deadline).
    public func stopMail() {
        mailWorker?.stop()
    }
}
