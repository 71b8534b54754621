import CryptoCore
import Observability
import Storage

/// The server's features, each a controller that holds only what it uses, built once from the configuration and the
/// shared services by the server's initializer (the composition root of a request's work). The route table names a
/// controller by its key path here.
struct Controllers: Sendable {
    let sessions: SessionsController
    let oauthAuthorization: OAuthAuthorizationController
    let oauthTokens: OAuthTokenController

    init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        time: any TimeSource,
        sessions: SessionService,
        challenges: ChallengeService,
        accounts: SignedInAccounts,
        random: any RandomSource,
        tokens: AccessTokenService,
        staticFiles: StaticFiles?,
        log: Logger
    ) {
        self.sessions = SessionsController(
            store: store,
            time: time,
            sessions: sessions,
            challenges: challenges,
            accounts: accounts,
            handoffOrigin: configuration.handoffOrigin,
            handoffRedirect: configuration.handoffRedirect
        )
        oauthAuthorization = OAuthAuthorizationController(
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            oidc: configuration.oidc,
            issuer: tokens.issuer,
            staticFiles: staticFiles
        )
        oauthTokens = OAuthTokenController(store: store, time: time, random: random, tokens: tokens, oidc: configuration.oidc, log: log)
    }
}
