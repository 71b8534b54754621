import ConfigurationReading
import HTTPServer

extension ServerConfiguration {
    /// The `limits` block: `maximumBodySize` (1 KiB to 10 MiB) and `maximumHeaderSize` (1 KiB to 1 MiB) in bytes, the
    /// read and write timeouts (1 s to an hour), `maximumConnections` and `maximumConnectionsPerAddress` (1 to a million),
    /// `maximumPasskeysPerAccount` (1 to 1,000), `suspectLane` (an object, or `null` for none).
    package mutating func parseLimits(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only([
            "maximumBodySize", "maximumHeaderSize", "readTimeoutSeconds", "writeTimeoutSeconds", "maximumConnections",
            "maximumConnectionsPerAddress", "maximumPasskeysPerAccount", "maximumQueuedRequests", "suspectLane",
        ])
        maximumPasskeysPerAccount = try block.integer("maximumPasskeysPerAccount", in: 1...1000) ?? maximumPasskeysPerAccount
        maximumBodySize = try block.integer("maximumBodySize", in: 1024...10_485_760) ?? maximumBodySize
        maximumHeaderSize = try block.integer("maximumHeaderSize", in: 1024...1_048_576) ?? maximumHeaderSize
        readTimeoutSeconds = try block.integer("readTimeoutSeconds", in: 1...3600) ?? readTimeoutSeconds
        writeTimeoutSeconds = try block.integer("writeTimeoutSeconds", in: 1...3600) ?? writeTimeoutSeconds
        maximumConnections = try block.integer("maximumConnections", in: 1...1_000_000) ?? maximumConnections
        maximumConnectionsPerAddress = try block.integer("maximumConnectionsPerAddress", in: 1...1_000_000)
        maximumQueuedRequests = try block.integer("maximumQueuedRequests", in: 1...1_000_000) ?? maximumQueuedRequests
        if block.has("suspectLane") { suspectLane = try block.object("suspectLane").map(Self.parseSuspectLane) }
    }

    /// `limits.suspectLane`: `workers` (1 to 64), `maximumQueued` (1 to 100,000), `refusals` (1 to 1,000), `seconds`
    /// (1 to 86,400), `niceness` (0 to 19), `maximumAddresses` (1,000 to 10,000,000); each absent one its default.
    private static func parseSuspectLane(_ block: ConfigurationReader) throws(ConfigurationError) -> SuspectLane {
        try block.only(["workers", "maximumQueued", "refusals", "seconds", "niceness", "maximumAddresses"])
        var lane = SuspectLane()
        lane.workers = try block.integer("workers", in: 1...64) ?? lane.workers
        lane.maximumQueued = try block.integer("maximumQueued", in: 1...100_000) ?? lane.maximumQueued
        lane.refusals = try block.integer("refusals", in: 1...1000) ?? lane.refusals
        lane.seconds = try block.integer("seconds", in: 1...86_400) ?? lane.seconds
        lane.niceness = try block.integer("niceness", in: 0...19) ?? lane.niceness
        lane.maximumAddresses = try block.integer("maximumAddresses", in: 1000...10_000_000) ?? lane.maximumAddresses
        return lane
    }
}
