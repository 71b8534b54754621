extension ServerConfiguration {
    /// The `sessions` block: `lifetimeSeconds`, one minute to a year.
    mutating func parseSessions(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["lifetimeSeconds"])
        sessionLifetimeSeconds = try block.integer("lifetimeSeconds", in: 60...31_536_000) ?? sessionLifetimeSeconds
    }

    /// The `challenges` block: `lifetimeSeconds`, ten seconds to an hour.
    mutating func parseChallenges(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["lifetimeSeconds"])
        challengeLifetimeSeconds = try block.integer("lifetimeSeconds", in: 10...3600) ?? challengeLifetimeSeconds
    }
}
