/// A failure to set up the HTTP server (`http.*`), or of an outbound request made with `HTTPClient` (`http.client*`,
/// whose reasons name the scheme, host and port and what went wrong; never the URL's path, query or credentials, a
/// header value or a body).
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case bindFailed = "http.bindFailed"
            case invalidAddress = "http.invalidAddress"
            case eventLoopFailed = "http.eventLoopFailed"
            case invalidConfiguration = "http.invalidConfiguration"
            case connectFailed = "http.connectFailed"
            case clientURLInvalid = "http.clientURLInvalid"
            case clientSchemeRefused = "http.clientSchemeRefused"
            case clientRequestInvalid = "http.clientRequestInvalid"
            case clientOverloaded = "http.clientOverloaded"
            case clientShutDown = "http.clientShutDown"
            case clientCalledOnEventLoop = "http.clientCalledOnEventLoop"
            case clientResolveFailed = "http.clientResolveFailed"
            case clientConnectFailed = "http.clientConnectFailed"
            case clientTimeout = "http.clientTimeout"
            case clientTLSHandshakeFailed = "http.clientTLSHandshakeFailed"
            case clientCertificateUntrusted = "http.clientCertificateUntrusted"
            case clientCertificateExpired = "http.clientCertificateExpired"
            case clientCertificateNotYetValid = "http.clientCertificateNotYetValid"
            case clientCertificateInvalid = "http.clientCertificateInvalid"
            case clientHostnameMismatch = "http.clientHostnameMismatch"
            case clientConnectionClosed = "http.clientConnectionClosed"
            case clientReplyMalformed = "http.clientReplyMalformed"
            case clientReplyTooLarge = "http.clientReplyTooLarge"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A listening socket cannot be bound.
        public static let bindFailed = Code(.bindFailed)
        /// A listen address is not `host:port`.
        public static let invalidAddress = Code(.invalidAddress)
        /// An event loop cannot be created or started.
        public static let eventLoopFailed = Code(.eventLoopFailed)
        /// The server configuration is inconsistent.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A loopback socket cannot connect.
        public static let connectFailed = Code(.connectFailed)
        /// Not an absolute URL with a host, or one carrying credentials.
        public static let clientURLInvalid = Code(.clientURLInvalid)
        /// Not `https`, and not `http` to a loopback address.
        public static let clientSchemeRefused = Code(.clientSchemeRefused)
        /// A header the client sets itself, a malformed header, or limits that are not positive.
        public static let clientRequestInvalid = Code(.clientRequestInvalid)
        /// Too many requests are waiting for a connection.
        public static let clientOverloaded = Code(.clientOverloaded)
        /// The client was shut down before the request completed.
        public static let clientShutDown = Code(.clientShutDown)
        /// `sendAndWait` on the client's own event loop, which would wait for ever.
        public static let clientCalledOnEventLoop = Code(.clientCalledOnEventLoop)
        /// The host name did not resolve.
        public static let clientResolveFailed = Code(.clientResolveFailed)
        /// No connection: refused, unreachable, or closed before the TLS handshake.
        public static let clientConnectFailed = Code(.clientConnectFailed)
        /// The connect timeout (name resolution, TCP and TLS) or the request's deadline passed.
        public static let clientTimeout = Code(.clientTimeout)
        /// The TLS handshake failed for a reason other than the certificate.
        public static let clientTLSHandshakeFailed = Code(.clientTLSHandshakeFailed)
        /// The certificate chain does not lead to a trusted root.
        public static let clientCertificateUntrusted = Code(.clientCertificateUntrusted)
        /// A certificate of the chain has expired.
        public static let clientCertificateExpired = Code(.clientCertificateExpired)
        /// A certificate of the chain is not valid yet.
        public static let clientCertificateNotYetValid = Code(.clientCertificateNotYetValid)
        /// Another certificate problem (signature, purpose, encoding).
        public static let clientCertificateInvalid = Code(.clientCertificateInvalid)
        /// The certificate is not valid for the URL's host.
        public static let clientHostnameMismatch = Code(.clientHostnameMismatch)
        /// The server closed the connection before a complete reply.
        public static let clientConnectionClosed = Code(.clientConnectionClosed)
        /// The reply is not HTTP/1.x that libevent could parse.
        public static let clientReplyMalformed = Code(.clientReplyMalformed)
        /// The reply's header section or body is over the request's limit.
        public static let clientReplyTooLarge = Code(.clientReplyTooLarge)

        /// The wire and log form, e.g. `http.bindFailed`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// A human-readable explanation.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
