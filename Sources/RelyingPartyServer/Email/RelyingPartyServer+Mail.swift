extension RelyingPartyServer {
    /// Starts the mail outbox's sending thread (nothing without `email`).
    public func startMail() {
        mailWorker?.start()
    }

    /// Stops the sending thread after the send in flight (at most its deadline).
    public func stopMail() {
        mailWorker?.stop()
    }
}
