import AccessTokens
import ConfigurationReading
import CryptoCore
import HTTPServer
import JSON
import Observability
import WebAuthnCore

extension ServerConfiguration {
    /// `listen.admin`: "host:port", or a port alone for 127.0.0.1 (loopback unless an address says otherwise). Plain
    /// HTTP is refused on an address other than loopback: the admin keys would cross the network in the clear.
    package mutating func parseAdminListener(_ value: JSONValue) throws(ConfigurationError) {
        let key = "listen.admin"
        if let port = value.integerValue {
            guard (0...65535).contains(port) else { throw ConfigurationError(.invalidValue, key: key, "must be a port (0-65535) or \"host:port\"") }
            adminAddress = "127.0.0.1:\(port)"
        } else if let address = value.stringValue {
            guard Self.isAddress(address) else { throw ConfigurationError(.invalidValue, key: key, "must be a port (0-65535) or \"host:port\"") }
            adminAddress = address
        } else if value != .null {
            throw ConfigurationError(.invalidValue, key: key, "must be a port (0-65535) or \"host:port\"")
        }
    }

    /// The `admin` block: `keys`, the admin API's keys as `[{"name", "keySHA256"}]` (`passkeyd keys admin-key NAME`).
    package mutating func parseAdmin(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["keys"])
        if let value = block.value("keys"), value != .null {
            guard let items = value.arrayValue else {
                throw ConfigurationError(.invalidValue, key: "admin.keys", "must be a list of {\"name\", \"keySHA256\"}")
            }
            adminKeys = try BackendKey.list(items, key: "admin.keys")
        }
    }

    /// The `recovery` block: `enrollmentURL` (the page that opens enrollment links; the first origin's `/enroll` by
    /// default), `enrollmentLinkLifetimeSeconds` (a minute to 30 days, 24 hours by default) and
    /// `sessionLifetimeSeconds` of the restricted sessions recovery codes give (a minute to a day, 15 minutes by default).
    package mutating func parseRecovery(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["enrollmentURL", "enrollmentLinkLifetimeSeconds", "sessionLifetimeSeconds"])
        if let url = try block.string("enrollmentURL") {
            guard url.hasPrefix("https://") || url.hasPrefix("http://localhost") || url.hasPrefix("http://127.0.0.1"), !url.contains("?"),
                !url.contains("#")
            else {
                throw ConfigurationError(.invalidValue, key: block.key("enrollmentURL"), "must be an https URL without a query or fragment")
            }
            enrollmentURL = url
        }
        enrollmentLinkLifetimeSeconds = try block.integer("enrollmentLinkLifetimeSeconds", in: 60...2_592_000) ?? enrollmentLinkLifetimeSeconds
        recoverySessionLifetimeSeconds = try block.integer("sessionLifetimeSeconds", in: 60...86_400) ?? recoverySessionLifetimeSeconds
    }

    /// Checks what the blocks decide together: an admin listener needs keys, and TLS or a loopback address.
    package func checkAdministration() throws(ConfigurationError) {
        guard let adminAddress else { return }
        guard !adminKeys.isEmpty else {
            throw ConfigurationError(.missingValue, key: "admin.keys", "listen.admin serves the admin API, which needs at least one key")
        }
        guard httpsAddress != nil || Self.isLoopback(adminAddress) else {
            throw ConfigurationError(
                .invalidValue,
                key: "listen.admin",
                "without listen.https the admin API is plain HTTP, which only a loopback address may serve (the keys would cross the network in the clear)"
            )
        }
    }

    /// The page of enrollment links: `recovery.enrollmentURL`, or the first origin's `/enroll`.
    public var enrollmentPageURL: String { enrollmentURL ?? (origins.first ?? "https://\(relyingPartyID)") + "/enroll" }

    /// The admin listener's settings: `listen.admin` with HTTPS (the server's certificate) when `listen.https` is set, plain
    /// HTTP otherwise; one event loop (an export or import never holds up the public loops), the request limits of
    /// `limits` but for bodies, which may be imports of up to `maximumAdminBodySize`, and no suspect lane: an operator
    /// or a scraper refused a few times on loopback would otherwise run the imports on niced threads behind a short
    /// queue, on threads the database pool was not sized for.
    public func adminHTTPServerConfiguration(tls: TLSServerContext?, log: Logger) -> HTTPServerConfiguration? {
        guard let adminAddress else { return nil }
        var settings = httpServerConfiguration(tls: tls, log: log)
        settings.httpsAddress = tls == nil ? nil : adminAddress
        settings.httpAddress = tls == nil ? adminAddress : nil
        settings.threads = 1
        settings.workers = 2
        settings.suspectLane = nil
        settings.maximumBodySize = Self.maximumAdminBodySize
        // Keyless connections sending large bodies (the key is checked once a request is whole) hold at most two
        // imports' worth between them (issue 43 item 3: 24 of them took 300 MB before).
        settings.maximumArrivingBytes = 2 * Self.maximumAdminBodySize
        settings.maximumConnections = 64
        settings.maximumConnectionsPerAddress = 64
        return settings
    }

    /// The largest body the admin listener takes: an NDJSON import of some tens of thousands of accounts (a larger one
    /// goes through `passkeyd admin import`, which reads a file).
    public static let maximumAdminBodySize = 16 << 20

    /// The host of `listen.admin`, for the start-up line.
    public var adminHost: String {
        guard let adminAddress, let colon = adminAddress.lastIndex(of: ":") else { return "127.0.0.1" }
        return String(adminAddress[..<colon])
    }

    package static func isLoopback(_ address: String) -> Bool {
        guard let colon = address.lastIndex(of: ":") else { return false }
        let host = address[..<colon]
        return host == "localhost" || host.hasPrefix("127.") || host == "[::1]"
    }
}
