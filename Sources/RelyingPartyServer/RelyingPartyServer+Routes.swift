import AssociatedDomains
import HTTPServer

extension RelyingPartyServer {
    /// Every endpoint, one line each: method, path, flags, handler. A request is dispatched to the route whose method
    /// and path match (HEAD as GET); a path of the table asked with another method is `405 method_not_allowed` (with
    /// `Allow`); any other path is a well-known file, a static file or `404 not_found`. The log names a route by its
    /// path pattern, never by the path itself (a passkey ID identifies a person's authenticator).
    static let routes: [Route] = [
        Route("GET", "/healthz", [.sessionIgnored, .answersFromMemory], \.operations, OperationsController.health),
        Route("GET", "/readyz", [.sessionIgnored, .noStore], \.operations, OperationsController.readiness),
        Route("GET", "/openapi.json", [.sessionIgnored, .answersFromMemory], \.operations, OperationsController.openAPIDocument),
        Route(
            "POST",
            "/webauthn/registration/options",
            [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed],
            \.registration,
            RegistrationController.options
        ),
        Route(
            "POST",
            "/webauthn/registration/verify",
            [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed, .allowsAccessToken],
            \.registration,
            RegistrationController.verify
        ),
        Route(
            "POST",
            "/webauthn/authentication/options",
            [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
            \.authentication,
            AuthenticationController.options,
            answersFromMemoryWhen: AuthenticationController.isDiscoverableOptionsRequest
        ),
        Route(
            "POST",
            "/webauthn/authentication/verify",
            [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
            \.authentication,
            AuthenticationController.verify
        ),
        Route("GET", "/me", [.noStore, .recoverySessionAllowed, .allowsAccessToken], \.account, AccountController.me),
        Route("DELETE", "/me", [.noStore], \.account, AccountController.deleteAccount),
        Route("GET", "/me/passkeys", [.noStore, .allowsAccessToken], \.account, AccountController.listPasskeys),
        Route("PATCH", "/me/passkeys/{id}", [.noStore], \.account, AccountController.renamePasskey),
        Route("DELETE", "/me/passkeys/{id}", [.noStore], \.account, AccountController.deletePasskey),
        Route("GET", "/me/sessions", [.noStore], \.sessions, SessionsController.list),
        Route("DELETE", "/me/sessions/{id}", [.noStore], \.sessions, SessionsController.revoke),
        Route("POST", "/me/sessions/revoke-others", [.noStore], \.sessions, SessionsController.revokeOthers),
        Route("POST", "/me/recovery-codes", [.noStore], \.recovery, RecoveryController.createCodes),
        Route("POST", "/auth/recovery", [.rateLimitedPerAddress, .noStore], \.recovery, RecoveryController.signIn),
        Route("POST", "/auth/password", [.rateLimitedPerAddress, .noStore], \.passwords, PasswordController.signIn),
        Route("POST", "/me/merge", [.rateLimitedPerAddress, .noStore], \.merge, MergeController.merge),
        Route("POST", "/me/link-suggestion/decline", [.noStore], \.appleLinks, AppleLinksController.declineLinkSuggestion),
        Route("DELETE", "/me/apple/{id}", [.noStore], \.appleLinks, AppleLinksController.unlink),
        Route("POST", "/logout", [.noStore, .recoverySessionAllowed], \.sessions, SessionsController.logout),
        Route("POST", "/session/token", [.noStore], \.accessTokens, AccessTokenController.sessionToken),
        Route("POST", "/session/handoff", [.rateLimitedPerAddress, .noStore], \.sessions, SessionsController.startHandoff),
        Route(
            "GET",
            "/session/handoff",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored, .writesOnGet],
            \.sessions,
            SessionsController.completeHandoff
        ),
        Route(
            "POST",
            "/session/handoff/switch",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.sessions,
            SessionsController.switchHandoff
        ),
        Route("POST", "/introspect", [.noStore, .sessionIgnored], \.accessTokens, AccessTokenController.introspect),
        Route("GET", "/.well-known/jwks.json", [.sessionIgnored], \.accessTokens, AccessTokenController.jwks),
        Route("GET", "/.well-known/openid-configuration", [.sessionIgnored, .answersFromMemory], \.accessTokens, AccessTokenController.discovery),
        Route(
            "GET",
            "/oauth/authorize",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.oauthAuthorization,
            OAuthAuthorizationController.authorize
        ),
        Route("GET", "/oauth/sign-in", [.noStore, .sessionIgnored], \.oauthAuthorization, OAuthAuthorizationController.signInPage),
        Route("GET", "/oauth/consent", [.noStore, .sessionIgnored], \.oauthAuthorization, OAuthAuthorizationController.consentRequest),
        Route(
            "POST",
            "/oauth/consent",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.oauthAuthorization,
            OAuthAuthorizationController.consent
        ),
        Route("POST", "/oauth/token", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.oauthTokens, OAuthTokenController.token),
        Route("POST", "/oauth/revoke", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.oauthTokens, OAuthTokenController.revokeOAuthToken),
        Route("GET", "/oauth/userinfo", [.noStore, .sessionIgnored], \.oauthTokens, OAuthTokenController.userInfo),
        Route("POST", "/oauth/userinfo", [.noStore, .sessionIgnored], \.oauthTokens, OAuthTokenController.userInfo),
        Route("POST", "/auth/apple/nonce", [.rateLimitedPerAddress, .noStore, .allowsAccessToken], \.appleSignIn, AppleSignInController.nonce),
        Route("POST", "/auth/apple", [.rateLimitedPerAddress, .noStore], \.appleSignIn, AppleSignInController.signIn),
        Route("GET", "/auth/apple/start", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.webSignIn, WebSignInController.start),
        Route("POST", "/auth/apple/callback", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.webSignIn, WebSignInController.callback),
        Route(
            "POST",
            "/auth/apple/notifications",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.appleNotifications,
            AppleNotificationsController.receive
        ),
        Route(
            "POST",
            "/auth/{provider}/nonce",
            [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
            \.federatedSignIn,
            FederatedSignInController.nonce
        ),
        Route("POST", "/auth/{provider}", [.rateLimitedPerAddress, .noStore], \.federatedSignIn, FederatedSignInController.signIn),
        Route("DELETE", "/me/identities/{provider}/{subject}", [.noStore], \.federatedLinks, FederatedLinksController.unlink),
        Route("GET", "/auth/{provider}/start", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.webSignIn, WebSignInController.start),
        Route(
            "GET",
            "/auth/{provider}/callback",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored, .writesOnGet],
            \.webSignIn,
            WebSignInController.callback
        ),
        Route("PATCH", "/me", [.rateLimitedPerAddress, .noStore], \.email, EmailController.updateMe),
        Route("POST", "/me/email/verify", [.rateLimitedPerAddress, .noStore], \.email, EmailController.verifyCode),
        Route("GET", "/email/verify", [.noStore, .sessionIgnored], \.email, EmailController.verifyLinkPage),
        Route("POST", "/email/verify", [.rateLimitedPerAddress, .noStore, .sessionIgnored], \.email, EmailController.verifyLink),
        Route("POST", "/auth/recovery/email", [.rateLimitedPerAddress, .noStore], \.email, EmailController.requestRecovery),
        Route("GET", "/auth/recovery/email", [.noStore, .sessionIgnored], \.email, EmailController.recoveryLinkPage),
        Route("GET", "/auth/recovery/email/page.js", [.sessionIgnored, .answersFromMemory], \.email, EmailController.recoveryPageScript),
        Route(
            "POST",
            "/auth/recovery/email/session",
            [.rateLimitedPerAddress, .noStore, .sessionIgnored],
            \.email,
            EmailController.openRecoverySession
        ),
        Route("POST", "/email/events/{provider}", [.noStore, .sessionIgnored], \.mailEvents, MailEventsController.receive),
    ]

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
