import HTTPEdge
import HTTPServer

/// One endpoint: its method and path, the flags the server applies around it, and its handler. A path is literal,
/// or holds parameter segments (`{id}`, `{credentialId}`), each matching one non-empty path segment, given to the
/// handler in order (`/me/passkeys/{id}`, `/admin/users/{id}/passkeys/{credentialId}`). The table of every public
/// route is `RelyingPartyServer.routes`; the admin listener's is `RelyingPartyServer.adminRoutes`. A class, so that
/// dispatching a request against the table retains one reference per route instead of copying each one's members.
final class Route: Sendable {
    /// What the server does around the handler, per route.
    struct Flags: OptionSet, Sendable {
        let rawValue: Int

        /// Takes a token from the client address's bucket first (`429 rate_limited` when it is empty).
        static let rateLimitedPerAddress = Flags(rawValue: 1 << 0)
        /// The answer carries `Cache-Control: no-store` (options, sessions, account data).
        static let noStore = Flags(rawValue: 1 << 1)
        /// The request's session credentials are not looked at: a stale cookie or bearer is not refused (Apple's
        /// notifications, the session hand-off link a web view opens, `/healthz`, `/readyz`, the public JWKS and discovery
        /// documents, and introspection, whose bearer is a backend key). Every other route resolves them first and
        /// refuses a stale one with `401 not_signed_in`.
        static let sessionIgnored = Flags(rawValue: 1 << 2)
        /// A recovery code's restricted session may call it (register a passkey, read `/me`, sign out); on every other
        /// route such a session is `403 recovery_session_restricted`.
        static let recoverySessionAllowed = Flags(rawValue: 1 << 3)
        /// An access token (a bearer JWT) stands for its session here: the route reads the account without changing it
        /// (`GET /me`) or does not use the session at all. On every other route that resolves credentials, a live access
        /// token is `403 insufficient_scope` before the handler runs: an access token is for the app's API, and a new
        /// route refuses it unless it says otherwise. A stale or unknown one is `401 not_signed_in` everywhere.
        static let allowsAccessToken = Flags(rawValue: 1 << 4)
        /// The handler answers from memory, waiting on nothing (`/healthz`, the OpenAPI and discovery documents): it
        /// runs on the event-loop thread. Every other route runs on the worker pool, so that its waits on the store or
        /// the network never hold up the loop's other connections.
        static let answersFromMemory = Flags(rawValue: 1 << 5)
        /// On the admin listener: served without an admin key when `listen.admin` is a loopback address (`/metrics`,
        /// for a Prometheus agent on the same machine); elsewhere it needs a key like every admin route.
        static let openOnLoopback = Flags(rawValue: 1 << 6)
        /// A GET whose handler may write events (a session started by a hand-off link or a provider's redirect): the
        /// outbox workers are woken after it, as after every other method, whether it succeeded or not.
        static let writesOnGet = Flags(rawValue: 1 << 7)
    }

    /// The handler, given the server, the request and its context.
    typealias Handler = @Sendable (RelyingPartyServer, HTTPRequest, RouteContext) throws(ServerError) -> HTTPResponse

    let method: String
    let path: String
    let flags: Flags
    let handler: Handler
    /// Which of the route's requests are answered from memory on the event-loop thread although the route is not
    /// `.answersFromMemory`: those that need neither the store nor the network (a discoverable sign-in's options).
    let answersFromMemoryWhen: (@Sendable (HTTPRequest) -> Bool)?
    private let segments: [Substring]
    /// The path up to its first parameter segment (all of it for a literal path): a request path that does not start
    /// with it is not this route's, which is found without splitting it (Foundation's `contains` there was once most of
    /// the CPU of a well-known file's answer).
    private let literalPrefix: String
    /// Whether the path has no parameter segment (`RouteTable` finds such a route by its path).
    let isLiteral: Bool

    /// A route to a handler that takes the request, e.g. `RelyingPartyServer.me`.
    convenience init(
        _ method: String,
        _ path: String,
        _ flags: Flags,
        _ handler: @escaping @Sendable (RelyingPartyServer) -> (HTTPRequest) throws(ServerError) -> HTTPResponse,
        answersFromMemoryWhen: (@Sendable (HTTPRequest) -> Bool)? = nil
    ) {
        self.init(
            method,
            path,
            flags,
            handler: { server, request, _ throws(ServerError) in try handler(server)(request) },
            answersFromMemoryWhen: answersFromMemoryWhen
        )
    }

    /// A route to a handler that takes the request and its context (the session, the `{id}` segment), e.g.
    /// `RelyingPartyServer.deletePasskey`.
    convenience init(
        _ method: String,
        _ path: String,
        _ flags: Flags,
        _ handler: @escaping @Sendable (RelyingPartyServer) -> (HTTPRequest, RouteContext) throws(ServerError) -> HTTPResponse
    ) {
        self.init(method, path, flags, handler: { server, request, context throws(ServerError) in try handler(server)(request, context) })
    }

    /// A route to a feature controller's handler, named by the controller's key path in `Controllers` and its method,
    /// e.g. `\.sessions, SessionsController.list`. The key path is taken as a function (a plain member read, where a
    /// `KeyPath` subscript goes through the runtime's generic projection on every request).
    convenience init<Controller: Sendable>(
        _ method: String,
        _ path: String,
        _ flags: Flags,
        _ controller: @escaping @Sendable (Controllers) -> Controller,
        _ handler: @escaping @Sendable (Controller) -> (HTTPRequest, RouteContext) throws(ServerError) -> HTTPResponse,
        answersFromMemoryWhen: (@Sendable (HTTPRequest) -> Bool)? = nil
    ) {
        self.init(
            method,
            path,
            flags,
            handler: { server, request, context throws(ServerError) in try handler(controller(server.controllers))(request, context) },
            answersFromMemoryWhen: answersFromMemoryWhen
        )
    }

    private init(
        _ method: String,
        _ path: String,
        _ flags: Flags,
        handler: @escaping Handler,
        answersFromMemoryWhen: (@Sendable (HTTPRequest) -> Bool)? = nil
    ) {
        self.method = method
        self.path = path
        self.flags = flags
        self.handler = handler
        self.answersFromMemoryWhen = answersFromMemoryWhen
        segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let firstParameter = path.firstIndex(of: "{")
        literalPrefix = String(path[..<(firstParameter ?? path.endIndex)])
        isLiteral = firstParameter == nil
    }

    /// Whether `request` is answered from memory, on the event-loop thread.
    func answersFromMemory(_ request: HTTPRequest) -> Bool {
        flags.contains(.answersFromMemory) || answersFromMemoryWhen?(request) == true
    }

    /// The parameter segments when `requestPath` is this route's path (none for a literal path), or nil.
    func match(_ requestPath: String) -> [String]? {
        guard !isLiteral else { return requestPath == path ? [] : nil }
        guard requestPath.hasPrefix(literalPrefix) else { return nil }
        let requested = requestPath.split(separator: "/", omittingEmptySubsequences: false)
        guard requested.count == segments.count else { return nil }
        var parameters: [String] = []
        for (pattern, segment) in zip(segments, requested) {
            if pattern.first == "{" && pattern.last == "}" {
                guard !segment.isEmpty else { return nil }
                parameters.append(String(segment))
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}
