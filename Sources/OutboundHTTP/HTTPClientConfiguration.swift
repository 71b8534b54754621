import CryptoCore

/// Settings of one `HTTPClient`; the per-request limits are on `HTTPClientRequest`.
public struct HTTPClientConfiguration: Sendable {
    /// The trust anchors of requests that bring none; nil means the system roots.
    public var tls: TLSClientContext?
    /// Connections open at once; further requests wait for one to finish (within their deadline).
    public var maximumConnections: Int
    /// Requests waiting for a connection; beyond this `send` fails at once with `http.clientOverloaded`.
    public var maximumWaitingRequests: Int
    /// The `User-Agent` of requests that set none.
    public var userAgent: String
    /// A hosts file read after the system's, for tests of name resolution without DNS.
    var extraHostsFile: String?

    public init(tls: TLSClientContext? = nil, maximumConnections: Int = 16, maximumWaitingRequests: Int = 1_000, userAgent: String = "passkeyd") {
        self.tls = tls
        self.maximumConnections = maximumConnections
        self.maximumWaitingRequests = maximumWaitingRequests
        self.userAgent = userAgent
    }
}
