import ConfigurationReading

extension ServerConfiguration {
    /// The `limits` block: `maximumBodySize` (1 KiB to 10 MiB) and `maximumHeaderSize` (1 KiB to 1 MiB) in bytes, the
    /// read and write timeouts (1 s to an hour), `maximumConnections` and `maximumConnectionsPerAddress` (1 to a million),
    /// `maximumPasskeysPerAccount` (1 to 1,000).
    package mutating func parseLimits(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only([
            "maximumBodySize", "maximumHeaderSize", "readTimeoutSeconds", "writeTimeoutSeconds", "maximumConnections",
            "maximumConnectionsPerAddress", "maximumPasskeysPerAccount", "maximumQueuedRequests",
        ])
        maximumPasskeysPerAccount = try block.integer("maximumPasskeysPerAccount", in: 1...1000) ?? maximumPasskeysPerAccount
        maximumBodySize = try block.integer("maximumBodySize", in: 1024...10_485_760) ?? maximumBodySize
        maximumHeaderSize = try block.integer("maximumHeaderSize", in: 1024...1_048_576) ?? maximumHeaderSize
        readTimeoutSeconds = try block.integer("readTimeoutSeconds", in: 1...3600) ?? readTimeoutSeconds
        writeTimeoutSeconds = try block.integer("writeTimeoutSeconds", in: 1...3600) ?? writeTimeoutSeconds
        maximumConnections = try block.integer("maximumConnections", in: 1...1_000_000) ?? maximumConnections
        maximumConnectionsPerAddress = try block.integer("maximumConnectionsPerAddress", in: 1...1_000_000)
        maximumQueuedRequests = try block.integer("maximumQueuedRequests", in: 1...1_000_000) ?? maximumQueuedRequests
    }
}
