import HTTPServer

extension RelyingPartyServer {
    /// Every endpoint, one line each: method, path, flags, handler. A request is dispatched to the route whose method
    /// and path match (HEAD as GET); a path of the table asked with another method is `405 method_not_allowed` (with
    /// `Allow`); any other path is a well-known file, a static file or `404 not_found`. The log names a route by its
    /// path pattern, never by the path itself (a passkey ID identifies a person's authenticator).
    static let routes: [Route] = [
        Route("GET", "/healthz", [.sessionIgnored, .answersFromMemory], RelyingPartyServer.health),
        Route("GET", "/readyz", [.sessionIgnored, .noStore], RelyingPartyServer.readiness),
        Route("GET", "/openapi.json", [.sessionIgnored, .answersFromMemory], RelyingPartyServer.openAPIDocument),
        Route(
            "POST",
            "/webauthn/registration/options",
            [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed],
            RelyingPartyServer.registrationOptions
        ),
        Route(
            "POST",
            "/webauthn/registration/verify",
            [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed, .allowsAccessToken],
            RelyingPartyServer.registrationVerify
        ),
        Route(
            "POST",
            "/webauthn/authentication/options",
            [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
            RelyingPartyServer.authenticationOptions,
            answersFromMemoryWhen: RelyingPartyServer.isDiscoverableOptionsRequest
        ),
        Route(
            "POST",
            "/webauthn/authentication/verify",
            [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
            RelyingPartyServer.authenticationVerify
        ),
        Route("GET", "/me", [.noStore, .recoverySessionAllowed, .allowsAccessToken], RelyingPartyServer.me),
        Route("DELETE", "/me", [.noStore], RelyingPartyServer.deleteAccount),
        Route("GET", "/me/passkeys", [.noStore, .allowsAccessToken], RelyingPartyServer.listPasskeys),
        Route("PATCH", "/me/passkeys/{id}", [.noStore], RelyingPartyServer.renamePasskey),
        Route("DELETE", "/me/passkeys/{id}", [.noStore], RelyingPartyServer.deletePasskey),
        Route("GET", "/me/sessions", [.noStore], \.sessions, SessionsController.list),
        Route("DELETE", "/me/sessions/{id}", [.noStore], \.sessions, SessionsController.revoke),
        Route("POST", "/me/sessions/revoke-others", [.noStore], \.sessions, SessionsController.revokeOthers),
        Route("POST", "/me/recovery-codes", [.noStore], RelyingPartyServer.createRecoveryCodes),
        Route("POST", "/auth/recovery", [.rateLimitedPerAddress, .noStore], RelyingPartyServer.recoverySignIn),
        Route("POST", "/me/merge", [.rateLimitedPerAddress, .noStore], RelyingPartyServer.merge),
        Route("POST", "/me/link-suggestion/decline", [.noStore], \.appleLinks, AppleLinksController.declineLinkSuggestion),
        Route("DELETE", "/me/apple/{id}", [.noStore], \.appleLinks, AppleLinksController.unlink),
        Route("POST", "/logout", [.noStore, .recoverySessionAllowed], \.sessions, SessionsController.logout),
        Route("POST", "/session/token", [.noStore], RelyingPartyServer.sessionToken),
        Route("POST", "/session/handoff", [.rateLimitedPerAddress, .noStore], \.sessions, SessionsController.startHandoff),
        Route("GET", "/session/handoff", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.sessions, SessionsController.completeHandoff),
        Route("POST", "/introspect", [.noStore, .sessionIgnored], RelyingPartyServer.introspect),
        Route("GET", "/.well-known/jwks.json", [.sessionIgnored], RelyingPartyServer.jwks),
        Route("GET", "/.well-known/openid-configuration", [.sessionIgnored, .answersFromMemory], RelyingPartyServer.openIDConfiguration),
        Route("GET", "/oauth/authorize", [.rateLimitedPerAddress, .noStore, .sessionIgnored], RelyingPartyServer.authorize),
        Route("GET", "/oauth/sign-in", [.noStore, .sessionIgnored], RelyingPartyServer.signInPage),
        Route("POST", "/oauth/token", [.rateLimitedPerAddress, .noStore, .sessionIgnored], RelyingPartyServer.token),
        Route("POST", "/oauth/revoke", [.rateLimitedPerAddress, .noStore, .sessionIgnored], RelyingPartyServer.revokeOAuthToken),
        Route("GET", "/oauth/userinfo", [.noStore, .sessionIgnored], RelyingPartyServer.userInfo),
        Route("POST", "/oauth/userinfo", [.noStore, .sessionIgnored], RelyingPartyServer.userInfo),
        Route("POST", "/auth/apple/nonce", [.rateLimitedPerAddress, .noStore, .allowsAccessToken], \.appleSignIn, AppleSignInController.nonce),
        Route("POST", "/auth/apple", [.rateLimitedPerAddress, .noStore], \.appleSignIn, AppleSignInController.signIn),
        Route("GET", "/auth/apple/start", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.appleWeb, AppleWebController.start),
        Route("POST", "/auth/apple/callback", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.appleWeb, AppleWebController.callback),
        Route(
            "POST",
            "/auth/apple/notifications",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.appleNotifications,
            AppleNotificationsController.receive
        ),
    ]

    /// `GET /healthz`: liveness (the process answers); `/readyz` checks what serving needs.
    func health(_ request: HTTPRequest) -> HTTPResponse {
        JSONBody.ok(["status": "ok"])
    }

    /// What a table says about a request.
    enum Dispatch {
        /// The route and its parameter segments.
        case route(Route, parameters: [String])
        /// The path is in the table, under other methods only (an `OPTIONS` request: a CORS preflight).
        case wrongMethod(allowed: [String])
        /// The path is not in the table.
        case unrouted

        /// Whether the path is a route's, whatever the method.
        var isRouted: Bool {
            if case .unrouted = self { false } else { true }
        }
    }

    /// The public routes, indexed.
    static let routeTable = RouteTable(routes)

    /// The route of `table` (the public routes by default) for `method` (HEAD already read as GET) and `path`.
    static func dispatch(_ method: String, _ path: String, in table: RouteTable = routeTable) -> Dispatch {
        table.dispatch(method, path)
    }

    /// The path for the log: the route's pattern (`/me/passkeys/{id}`), never the path a client sent.
    static func route(of path: String, in table: RouteTable = routeTable) -> String {
        table.pattern(of: path) ?? "(unrouted)"
    }

    /// The route label of a dispatched request, for the log and the metrics: the route's pattern, a well-known file's
    /// path, or `(other)` (static files and unknown paths): a small fixed set, never a path a client chose.
    static func label(_ dispatch: Dispatch, path: String) -> String {
        switch dispatch {
        case .route(let route, _): route.path
        case .wrongMethod: route(of: path)
        case .unrouted: WellKnownFiles.paths.contains(path) ? path : "(other)"
        }
    }
}
