/// What the server resolved for a request before its handler runs: the parameter segments of the path and the session
/// its credentials name (nil without credentials; stale ones never reach a handler).
struct RouteContext: Sendable {
    /// The parameter segments of the path, in order (none for a literal path).
    let parameters: [String]
    /// The request's valid session; nil when it carries none (or the route ignores sessions).
    let session: SessionService.SignedIn?
    /// Whether the request is answered on the event loop's thread (`answerOnLoop`), which must never wait on the store:
    /// its rate limits are the node's own buckets only (`RequestLimits.take(locally:)`).
    let isOnLoop: Bool

    /// The first parameter segment, `{id}` ("" for a literal path).
    var identifier: String { parameters.first ?? "" }
}
