import ConfigurationReading

extension ServerConfiguration {
    /// The `listen` block: `https` and `http` addresses ("host:port"); at least one. `admin` is the admin API's own
    /// listener (`parseAdminListener`).
    package mutating func parseListen(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["https", "http", "admin"])
        if let admin = block.value("admin") { try parseAdminListener(admin) }
        if block.has("https") { httpsAddress = try block.string("https") }
        httpAddress = try block.string("http")
        for (key, address) in [("listen.https", httpsAddress), ("listen.http", httpAddress)] {
            if let address, !Self.isAddress(address) { throw ConfigurationError(.invalidValue, key: key, "must be \"host:port\"") }
        }
        guard httpsAddress != nil || httpAddress != nil else {
            throw ConfigurationError(.missingValue, key: "listen", "needs https or http")
        }
    }

    /// The `tls` block: the `certificate` chain and `privateKey` files, both or neither, and `strictTransportSecurity`.
    package mutating func parseTLS(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["certificate", "privateKey", "strictTransportSecurity"])
        certificateFile = try block.string("certificate")
        privateKeyFile = try block.string("privateKey")
        guard (certificateFile == nil) == (privateKeyFile == nil) else {
            throw ConfigurationError(.missingValue, key: "tls", "certificate and privateKey go together")
        }
        if block.has("strictTransportSecurity") { try parseStrictTransportSecurity(block.object("strictTransportSecurity")) }
    }

    /// `tls.strictTransportSecurity`: `{"maxAgeSeconds": 0…315360000, "includeSubDomains": false}`, or null for no header.
    private mutating func parseStrictTransportSecurity(_ block: ConfigurationReader?) throws(ConfigurationError) {
        guard let block else {
            strictTransportSecurityMaxAgeSeconds = nil
            return
        }
        try block.only(["maxAgeSeconds", "includeSubDomains"])
        strictTransportSecurityMaxAgeSeconds = try block.integer("maxAgeSeconds", in: 0...315_360_000) ?? strictTransportSecurityMaxAgeSeconds
        if let value = block.value("includeSubDomains") {
            guard let flag = value.boolValue else {
                throw ConfigurationError(.invalidValue, key: block.key("includeSubDomains"), "must be true or false")
            }
            strictTransportSecurityIncludesSubDomains = flag
        }
    }

    package static func isAddress(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return false }
        return (0...65535).contains(port) && colon != text.startIndex
    }
}
