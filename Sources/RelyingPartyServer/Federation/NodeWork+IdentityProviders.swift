extension NodeWork {
    /// Starts the first fetch of every configured identity provider's discovery document and keys, so that the first
    /// sign-in finds them (a request never waits for a fetch: without keys it is `503 identity_provider_unavailable`).
    public func startIdentityProviders() {
        identityProviders.prefetchKeys()
    }

    /// Whether the named provider's keys are cached and unexpired, and how many fetches completed (tests wait on it).
    package func identityProviderKeyStatus(_ name: String) -> (cached: Bool, completedFetches: Int) {
        guard let provider = try? identityProviders.provider(named: name) else { return (false, 0) }
        return provider.keyCache.status(now: time.now)
    }
}
