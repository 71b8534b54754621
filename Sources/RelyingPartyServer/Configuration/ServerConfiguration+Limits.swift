extension ServerConfiguration {
    /// The `limits` block: `maximumBodySize` in bytes, 1 KiB to 10 MiB.
    mutating func parseLimits(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["maximumBodySize"])
        maximumBodySize = try block.integer("maximumBodySize", in: 1024...10_485_760) ?? maximumBodySize
    }
}
