/// Answers requests. Called synchronously on the event-loop thread that owns the connection: while a call runs, that
/// loop's other connections wait, and the other loops (one per thread) keep serving. A handler may block, but each
/// wait must be bounded. The relying-party handler waits on its store (a SQLite write, a PostgreSQL round trip, at
/// most 10 s for a pooled connection) and, for Sign in with Apple, on fetching Apple's keys when none are cached
/// (at most 5 s; they are prefetched at start-up); its other outbound calls run on a worker thread.
public protocol HTTPHandler: Sendable {
    /// Produces the response for one request.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
