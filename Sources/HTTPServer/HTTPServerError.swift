/// A failure to set up the HTTP server.
///
/// Codes: `http.bindFailed`, `http.invalidAddress`, `http.eventLoopFailed`, `http.invalidConfiguration`, `http.connectFailed`.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable code such as `http.bindFailed`.
    public let code: String
    /// A human-readable explanation.
    public let reason: String

    /// Creates an error with a code and a reason.
    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    static func bindFailed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.bindFailed", reason: reason) }
    static func invalidAddress(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.invalidAddress", reason: reason) }
    static func eventLoopFailed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.eventLoopFailed", reason: reason) }
    static func invalidConfiguration(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.invalidConfiguration", reason: reason) }
    static func connectFailed(_ reason: String) -> HTTPServerError { HTTPServerError(code: "http.connectFailed", reason: reason) }
}
