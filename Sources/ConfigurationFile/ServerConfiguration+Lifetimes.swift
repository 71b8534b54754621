import ConfigurationReading

extension ServerConfiguration {
    /// The `sessions` block: `lifetimeSeconds`, one minute to a year; `handoffRedirect`, a path of this origin.
    package mutating func parseSessions(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["lifetimeSeconds", "handoffRedirect"])
        sessionLifetimeSeconds = try block.integer("lifetimeSeconds", in: 60...31_536_000) ?? sessionLifetimeSeconds
        if let path = try block.string("handoffRedirect") {
            // Same origin only: an absolute path, never `//host` or `/\host` (which browsers read as another host), no
            // scheme, no control characters or spaces, at most 512 bytes.
            let allowed = path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }
            guard path.hasPrefix("/"), !path.hasPrefix("//"), allowed, path.utf8.count <= 512 else {
                throw ConfigurationError(
                    .invalidValue,
                    key: block.key("handoffRedirect"),
                    "must be a path of this server starting with a single /, such as /account (printable ASCII, no backslash)"
                )
            }
            handoffRedirect = path
        }
    }

    /// The `challenges` block: `lifetimeSeconds`, ten seconds to an hour.
    package mutating func parseChallenges(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["lifetimeSeconds"])
        challengeLifetimeSeconds = try block.integer("lifetimeSeconds", in: 10...3600) ?? challengeLifetimeSeconds
    }
}
