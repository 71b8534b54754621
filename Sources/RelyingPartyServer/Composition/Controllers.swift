import CryptoCore
import Observability
import Storage

/// The server's features, each a controller that holds only what it uses, built once from the configuration and the
/// shared services by the server's initializer (the composition root of a request's work). The route table names a
/// controller by its key path here.
struct Controllers: Sendable {
    let sessions: SessionsController
    let appleSignIn: AppleSignInController
    let appleWeb: AppleWebController
    let appleNotifications: AppleNotificationsController
    let appleLinks: AppleLinksController

    init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        time: any TimeSource,
        sessions: SessionService,
        challenges: ChallengeService,
        accounts: SignedInAccounts,
        random: any RandomSource,
        log: Logger,
        signInAnswers: SignInAnswers,
        limits: RequestLimits,
        apple: AppleIntegration?,
        deletions: AccountDeletions
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
        let appleResolver = AppleAccountResolver(apple: apple, store: store, time: time, random: random, sessions: sessions, log: log)
        appleSignIn = AppleSignInController(
            resolver: appleResolver,
            challenges: challenges,
            accounts: accounts,
            signInAnswers: signInAnswers,
            limits: limits,
            mergeTokens: MergeTokens(challenges: challenges),
            time: time,
            log: log
        )
        appleWeb = AppleWebController(
            resolver: appleResolver,
            challenges: challenges,
            sessions: sessions,
            random: random,
            time: time,
            log: log,
            appleWebRedirectURI: configuration.tokenIssuer + "/auth/apple/callback"
        )
        appleNotifications = AppleNotificationsController(apple: apple, store: store, time: time, deletions: deletions, log: log)
        appleLinks = AppleLinksController(store: store, time: time, accounts: accounts, apple: apple)
    }
}
