/// The complete JSON error responses that replace libevent's own HTML error pages, and the 400s the HTTP layer
/// answers before any handler runs.
enum ErrorResponse {
    /// The client codes the HTTP layer answers by itself; `rawValue` is the API and never changes. The relying-party
    /// server answers `method_not_allowed` too (a known path asked with another method), under its own `ServerError.Code`
    /// of the same wire string and status, which a test keeps equal.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case badRequest = "bad_request"
            case requestTooLarge = "request_too_large"
            case expectationFailed = "expectation_failed"
            case methodNotAllowed = "method_not_allowed"
            case httpError = "http_error"
            case serverBusy = "server_busy"
            case rateLimited = "rate_limited"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// 400: the request is malformed, its header section is too large, it lacks `Host` or holds a NUL byte.
        static let badRequest = Code(.badRequest)
        /// 413: the body exceeds the configured maximum.
        static let requestTooLarge = Code(.requestTooLarge)
        /// 417: an `Expect` other than `100-continue`.
        static let expectationFailed = Code(.expectationFailed)
        /// 405 or 501: a method libevent does not parse.
        static let methodNotAllowed = Code(.methodNotAllowed)
        /// Any other status libevent decided on.
        static let httpError = Code(.httpError)
        /// 503: every worker is busy and the queue of waiting requests is full; `Retry-After` says when to try again.
        static let serverBusy = Code(.serverBusy)

        /// 429: the suspect lane's queue is full (`SuspectLane`); the same code and status as the relying-party
        /// server's rate limits.
        static let rateLimited = Code(.rateLimited)

        var rawValue: String { base.rawValue }
        var description: String { rawValue }
        static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    /// A raw HTTP/1.1 response for `status` with a JSON body `{"error": …, "message": …}` and `Connection: close`
    /// (and `Strict-Transport-Security` when given: an HTTPS answer).
    static func raw(status: Int, date: String, maximumBodySize: Int, maximumHeaderSize: Int, strictTransportSecurity: String? = nil) -> [UInt8] {
        let (code, message) = describe(status: status, maximumBodySize: maximumBodySize, maximumHeaderSize: maximumHeaderSize)
        let body = body(code, message)
        let head =
            "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
            + "Date: \(date)\r\n"
            + (strictTransportSecurity.map { "Strict-Transport-Security: \($0)\r\n" } ?? "")
            + "Connection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    /// `400 bad_request` with `Connection: close`, for a request libevent parsed but HTTP forbids.
    static func badRequest(_ message: String) -> HTTPResponse {
        var response = HTTPResponse.json(status: 400, Array(body(.badRequest, message).utf8))
        response.headers.add("Connection", "close")
        return response
    }

    /// `503 server_busy` with `Retry-After: 1`: the worker pool's queue is full.
    static func busy() -> HTTPResponse {
        var response = HTTPResponse.json(status: 503, Array(body(.serverBusy, "The server is busy; try again shortly.").utf8))
        response.headers.add("Retry-After", "1")
        return response
    }

    /// `429 rate_limited` with `Retry-After: 1`: the request is from an address with recent refusals, and the queue
    /// of such requests is full (`SuspectLane`).
    static func rateLimited() -> HTTPResponse {
        var response = HTTPResponse.json(
            status: 429,
            Array(body(.rateLimited, "Too many refused requests from this address; try again shortly.").utf8)
        )
        response.headers.add("Retry-After", "1")
        return response
    }

    /// The JSON body; `message` is one of the fixed sentences here, which need no escaping.
    private static func body(_ code: Code, _ message: String) -> String {
        "{\"error\":\"\(code)\",\"message\":\"\(message)\"}"
    }

    /// The error code and message for a status libevent decided on.
    private static func describe(status: Int, maximumBodySize: Int, maximumHeaderSize: Int) -> (code: Code, message: String) {
        switch status {
        case 413:
            (.requestTooLarge, "The request body exceeds \(maximumBodySize) bytes.")
        case 400:
            (.badRequest, "The request is malformed or its header section exceeds \(maximumHeaderSize) bytes.")
        case 417:
            (.expectationFailed, "Only 'Expect: 100-continue' is supported.")
        case 405, 501:
            (.methodNotAllowed, "The request method is not supported.")
        default:
            (.httpError, HTTPResponse.reasonPhrase(for: status))
        }
    }
}
