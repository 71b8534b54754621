/// Answers requests. Called synchronously on an event-loop thread, so it must not block for long.
public protocol HTTPHandler: Sendable {
    /// Produces the response for one request.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
