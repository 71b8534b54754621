/// Answers requests.
///
/// A request whose answer may wait (on the disk, a database, the network) is handled on the server's worker pool
/// (`HTTPServerConfiguration.workers`) and its response written back by the event loop that owns the connection: that
/// loop keeps serving its other connections meanwhile. When every worker is busy and `maximumQueuedRequests` wait
/// already, the request is answered `503 server_busy` with `Retry-After` at once. A request the handler answers from
/// memory (`answerOnLoop`: the well-known files, static files, health) is answered synchronously on the loop thread,
/// which is faster than a trip through the pool. Either way a handler runs on several threads at once, and each wait
/// must be bounded.
public protocol HTTPHandler: Sendable {
    /// Produces the response for one request (on a worker).
    func handle(_ request: HTTPRequest) -> HTTPResponse

    /// On the loop thread, first: the response when the handler answers `request` from memory, without waiting on
    /// anything; nil sends the request to the worker pool, where `handle` answers it. One call decides and answers, so
    /// that what is served from memory is looked up once.
    func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse?
}

extension HTTPHandler {
    /// By default every request is handled on the worker pool.
    public func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? { nil }
}
