import HTTPFields

/// One HTTP request, copied out of libevent before the handler runs.
public struct HTTPRequest: Sendable {
    /// The method in upper case: "GET", "POST", ... (a HEAD request reaches handlers as "GET").
    public var method: String
    /// The percent-decoded path without the query, e.g. "/webauthn/registration/options".
    public var path: String
    /// The raw query string after "?", if any.
    public var query: String?
    /// The request header fields.
    public var headers: HTTPHeaders
    /// The request body (at most the configured maximum body size).
    public var body: [UInt8]
    /// The peer's IP address as text.
    public var remoteAddress: String
    /// Whether the request arrived over TLS.
    public var isSecure: Bool
    /// The client the server resolved for its suspect lane (`HTTPServerConfiguration.clientAddress`), handed on when
    /// `HTTPServerConfiguration.sharesClientAddress` says that is the handler's own rule; nil otherwise (the handler
    /// then resolves the client itself).
    public var clientAddress: String?

    /// Creates a request; handlers can be tested this way without sockets.
    public init(
        method: String,
        path: String,
        query: String? = nil,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1",
        isSecure: Bool = true
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
    }
}
