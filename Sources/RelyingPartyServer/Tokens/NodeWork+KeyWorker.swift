import AccessTokens

extension NodeWork {
    /// Starts the signing-key worker: every `SigningKeyRing.refreshInterval(for:)`, and whenever the store announces
    /// a change, it runs the rotation schedule and loads the keys (other nodes' too).
    public func startKeyWorker() {
        tokens.startWorker()
    }

    /// Stops the signing-key worker and waits for its current round.
    public func stopKeyWorker() {
        tokens.worker.stop()
    }

    /// Runs one round of the signing-key worker on the calling thread (tests drive the schedule this way).
    @discardableResult
    package func processDueKeyWork() -> Bool {
        tokens.updateKeys()
    }
}
