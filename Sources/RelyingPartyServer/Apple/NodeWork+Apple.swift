extension NodeWork {
    /// Starts the Apple background worker (key refreshes, code exchanges, revocations); its first round fetches
    /// Apple's keys.
    public func startAppleWorker() {
        apple?.worker.start()
    }

    /// Starts a fetch of Apple's keys when they are missing or due (tests; the worker does it in its rounds).
    package func refreshAppleKeys() {
        apple?.keyCache.refreshIfDue()
    }

    /// Whether Apple's keys are cached and unexpired, and how many key fetches have completed (tests wait on it).
    package var appleKeyStatus: (cached: Bool, completedFetches: Int) {
        apple?.keyCache.status(now: time.now) ?? (false, 0)
    }

    /// Stops the Apple background worker and waits for its current round.
    public func stopAppleWorker() {
        apple?.worker.stop()
    }

    /// Runs one round of Apple background work on the calling thread (tests drive the worker this way).
    package func processDueAppleWork() {
        apple?.processDueWork()
    }
}
