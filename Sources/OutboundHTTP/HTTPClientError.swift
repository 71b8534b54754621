/// A failure of an outbound request made with `HTTPClient`, or of starting one. Reasons name the scheme, host and port
/// and what went wrong; never the URL's path, query or credentials, a header value or a body.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form (recorded with a webhook delivery that got no reply) and
    /// never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case eventLoopFailed = "http.clientEventLoopFailed"
            case configurationInvalid = "http.clientConfigurationInvalid"
            case urlInvalid = "http.clientURLInvalid"
            case schemeRefused = "http.clientSchemeRefused"
            case requestInvalid = "http.clientRequestInvalid"
            case overloaded = "http.clientOverloaded"
            case shutDown = "http.clientShutDown"
            case calledOnEventLoop = "http.clientCalledOnEventLoop"
            case resolveFailed = "http.clientResolveFailed"
            case connectFailed = "http.clientConnectFailed"
            case timeout = "http.clientTimeout"
            case tlsHandshakeFailed = "http.clientTLSHandshakeFailed"
            case certificateUntrusted = "http.clientCertificateUntrusted"
            case certificateExpired = "http.clientCertificateExpired"
            case certificateNotYetValid = "http.clientCertificateNotYetValid"
            case certificateInvalid = "http.clientCertificateInvalid"
            case hostnameMismatch = "http.clientHostnameMismatch"
            case connectionClosed = "http.clientConnectionClosed"
            case replyMalformed = "http.clientReplyMalformed"
            case replyTooLarge = "http.clientReplyTooLarge"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The client's event loop cannot be created or started.
        public static let eventLoopFailed = Code(.eventLoopFailed)
        /// The client's configuration is inconsistent (limits, the TLS context).
        public static let configurationInvalid = Code(.configurationInvalid)
        /// Not an absolute URL with a host, or one carrying credentials.
        public static let urlInvalid = Code(.urlInvalid)
        /// Not `https`, and not `http` to a loopback address.
        public static let schemeRefused = Code(.schemeRefused)
        /// A header the client sets itself, a malformed header, or limits that are not positive.
        public static let requestInvalid = Code(.requestInvalid)
        /// Too many requests are waiting for a connection.
        public static let overloaded = Code(.overloaded)
        /// The client was shut down before the request completed.
        public static let shutDown = Code(.shutDown)
        /// `sendAndWait` on the client's own event loop, which would wait for ever.
        public static let calledOnEventLoop = Code(.calledOnEventLoop)
        /// The host name did not resolve.
        public static let resolveFailed = Code(.resolveFailed)
        /// No connection: refused, unreachable, or closed before the TLS handshake.
        public static let connectFailed = Code(.connectFailed)
        /// The connect timeout (name resolution, TCP and TLS) or the request's deadline passed.
        public static let timeout = Code(.timeout)
        /// The TLS handshake failed for a reason other than the certificate.
        public static let tlsHandshakeFailed = Code(.tlsHandshakeFailed)
        /// The certificate chain does not lead to a trusted root.
        public static let certificateUntrusted = Code(.certificateUntrusted)
        /// A certificate of the chain has expired.
        public static let certificateExpired = Code(.certificateExpired)
        /// A certificate of the chain is not valid yet.
        public static let certificateNotYetValid = Code(.certificateNotYetValid)
        /// Another certificate problem (signature, purpose, encoding).
        public static let certificateInvalid = Code(.certificateInvalid)
        /// The certificate is not valid for the URL's host.
        public static let hostnameMismatch = Code(.hostnameMismatch)
        /// The server closed the connection before a complete reply.
        public static let connectionClosed = Code(.connectionClosed)
        /// The reply is not HTTP/1.x that libevent could parse.
        public static let replyMalformed = Code(.replyMalformed)
        /// The reply's header section or body is over the request's limit.
        public static let replyTooLarge = Code(.replyTooLarge)

        /// The wire and log form, e.g. `http.clientTimeout`.
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
