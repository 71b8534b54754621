extension ServerConfiguration {
    /// The top-level keys whose settings differ from `running`'s but cannot change in a running server (listeners,
    /// database, data folder, threads, the relying party, limits, sessions, challenges, algorithms, the demo site, Sign
    /// in with Apple): a reload reports them as needing a restart. Everything else is taken up by
    /// `RelyingPartyServer.reload` (and the TLS certificate by the listener).
    public func keysNeedingRestart(comparedWith running: ServerConfiguration) -> [String] {
        var keys: [String] = []
        func note(_ key: String, _ differs: Bool) { if differs { keys.append(key) } }
        note("listen", httpsAddress != running.httpsAddress || httpAddress != running.httpAddress || adminAddress != running.adminAddress)
        note(
            "tls.strictTransportSecurity",
            strictTransportSecurityMaxAgeSeconds != running.strictTransportSecurityMaxAgeSeconds
                || strictTransportSecurityIncludesSubDomains != running.strictTransportSecurityIncludesSubDomains
        )
        note(
            "tls",
            (certificateFile == nil) != (running.certificateFile == nil)
                || (certificateFile != nil && (certificateFile != running.certificateFile || privateKeyFile != running.privateKeyFile))
        )
        note("dataDirectory", dataDirectory != running.dataDirectory)
        note(
            "database",
            sqlitePath != running.sqlitePath || postgresConnectionString != running.postgresConnectionString
                || postgresPoolSize != running.postgresPoolSize || postgresTransactionPooling != running.postgresTransactionPooling
                || postgresListenConnectionString != running.postgresListenConnectionString
        )
        note("threads", threads != running.threads)
        note("workers", workerCount != running.workerCount)
        note("relyingParty", relyingPartyID != running.relyingPartyID || relyingPartyName != running.relyingPartyName || origins != running.origins)
        note(
            "limits",
            maximumBodySize != running.maximumBodySize || maximumHeaderSize != running.maximumHeaderSize
                || readTimeoutSeconds != running.readTimeoutSeconds || writeTimeoutSeconds != running.writeTimeoutSeconds
                || maximumConnections != running.maximumConnections || maximumConnectionsPerAddress != running.maximumConnectionsPerAddress
                || maximumPasskeysPerAccount != running.maximumPasskeysPerAccount || maximumQueuedRequests != running.maximumQueuedRequests
                || suspectLane != running.suspectLane
        )
        note("rateLimits", rateLimits != running.rateLimits)
        note("sessions", sessionLifetimeSeconds != running.sessionLifetimeSeconds || handoffRedirect != running.handoffRedirect)
        note("challenges", challengeLifetimeSeconds != running.challengeLifetimeSeconds)
        note("algorithms", algorithms != running.algorithms)
        note("www", wwwDirectory != running.wwwDirectory)
        note("apple", apple != running.apple)
        note("identityProviders", identityProviders != running.identityProviders)
        note(
            "recovery",
            enrollmentURL != running.enrollmentURL || enrollmentLinkLifetimeSeconds != running.enrollmentLinkLifetimeSeconds
                || recoverySessionLifetimeSeconds != running.recoverySessionLifetimeSeconds
        )
        // The access tokens' keys and their worker, introspection, CORS and the OpenID provider are set up at start.
        note("tokens", tokens != running.tokens)
        note("passwords", passwords != running.passwords)
        note("backends", backends != running.backends)
        note("cors", cors != running.cors)
        note("oidc", oidc != running.oidc)
        // The log writer and the metrics registry are made once per process.
        note("log", logFormat != running.logFormat || logLevel != running.logLevel)
        note("node", nodeName != running.nodeName)
        note("metrics", metricsEnabled != running.metricsEnabled)
        return keys
    }
}
