/// Failures of outbound requests made with `HTTPClient` (codes `http.client*`). Reasons name the scheme, host and port
/// and what went wrong; never the URL's path, query or credentials, a header value or a body.
extension HTTPServerError {
    /// Not an absolute URL with a host, or one carrying credentials.
    static func clientURLInvalid(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientURLInvalid", reason: reason) }
    /// Not `https`, and not `http` to a loopback address.
    static func clientSchemeRefused(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientSchemeRefused", reason: reason) }
    /// A header the client sets itself, a malformed header, or limits that are not positive.
    static func clientRequestInvalid(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientRequestInvalid", reason: reason) }
    /// Too many requests are waiting for a connection.
    static func clientOverloaded(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientOverloaded", reason: reason) }
    /// The client was shut down before the request completed.
    static func clientShutDown(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientShutDown", reason: reason) }
    /// `sendAndWait` on the client's own event loop, which would wait for ever.
    static func clientCalledOnEventLoop(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientCalledOnEventLoop", reason: reason) }
    /// The host name did not resolve.
    static func clientResolveFailed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientResolveFailed", reason: reason) }
    /// No connection: refused, unreachable, or closed before the TLS handshake.
    static func clientConnectFailed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientConnectFailed", reason: reason) }
    /// The connect timeout (name resolution, TCP and TLS) or the request's deadline passed.
    static func clientTimeout(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientTimeout", reason: reason) }
    /// The TLS handshake failed for a reason other than the certificate.
    static func clientTLSHandshakeFailed(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientTLSHandshakeFailed", reason: reason)
    }
    /// The certificate chain does not lead to a trusted root.
    static func clientCertificateUntrusted(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientCertificateUntrusted", reason: reason)
    }
    /// A certificate of the chain has expired.
    static func clientCertificateExpired(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientCertificateExpired", reason: reason)
    }
    /// A certificate of the chain is not valid yet.
    static func clientCertificateNotYetValid(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientCertificateNotYetValid", reason: reason)
    }
    /// Another certificate problem (signature, purpose, encoding).
    static func clientCertificateInvalid(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientCertificateInvalid", reason: reason)
    }
    /// The certificate is not valid for the URL's host.
    static func clientHostnameMismatch(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientHostnameMismatch", reason: reason)
    }
    /// The server closed the connection before a complete reply.
    static func clientConnectionClosed(_ reason: String) -> HTTPServerError {
        HTTPServerError(code: "http.clientConnectionClosed", reason: reason)
    }
    /// The reply is not HTTP/1.x that libevent could parse.
    static func clientReplyMalformed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientReplyMalformed", reason: reason) }
    /// The reply's header section or body is over the request's limit.
    static func clientReplyTooLarge(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.clientReplyTooLarge", reason: reason) }
}
