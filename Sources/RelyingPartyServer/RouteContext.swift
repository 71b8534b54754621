/// What the server resolved for a request before its handler runs: the `{id}` segment of the path and the session its
/// credentials name (nil without credentials; stale ones never reach a handler).
struct RouteContext: Sendable {
    /// The `{id}` segment ("" for a literal path).
    let identifier: String
    /// The request's valid session; nil when it carries none (or the route ignores sessions).
    let session: SessionService.SignedIn?
}
