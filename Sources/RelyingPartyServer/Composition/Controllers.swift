import Accounts
import ConfigurationFile
import CryptoCore
import FederatedIdentity
import Foundation
import Observability
import RateLimiting
import Storage

/// The server's features, each a controller that holds only what it uses, built once from the configuration and the
/// shared services by the server's initializer (the composition root of a request's work). The route table names a
/// controller by its key path here.
struct Controllers: Sendable {
    let sessions: SessionsController
    let accessTokens: AccessTokenController
    let operations: OperationsController
    let account: AccountController
    let recovery: RecoveryController
    let registration: RegistrationController
    let authentication: AuthenticationController
    let oauthAuthorization: OAuthAuthorizationController
    let oauthTokens: OAuthTokenController
    let appleSignIn: AppleSignInController
    let appleNotifications: AppleNotificationsController
    let appleLinks: AppleLinksController
    let admin: AdminController
    let merge: MergeController
    let passwords: PasswordController
    let federatedSignIn: FederatedSignInController
    let federatedLinks: FederatedLinksController
    let webSignIn: WebSignInController
    let email: EmailController
    let mailEvents: MailEventsController

    init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        time: any TimeSource,
        random: any RandomSource,
        sessions: SessionService,
        challenges: ChallengeService,
        tokens: AccessTokenService,
        accounts: SignedInAccounts,
        accountService: AccountService,
        settings: SettingsInForce,
        limits: RequestLimits,
        answers: SignInAnswers,
        assertions: AssertionVerifier,
        decoys: DecoyCredentials,
        staticFiles: StaticFiles?,
        apple: AppleIntegration?,
        webhooks: WebhookDispatcherInForce,
        metrics: ServerMetrics?,
        log: Logger,
        identityProviders: IdentityProviders
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
        accessTokens = AccessTokenController(
            store: store,
            time: time,
            tokens: tokens,
            accounts: accounts,
            backends: configuration.backends,
            relyingPartyID: configuration.relyingPartyID
        )
        operations = OperationsController(store: store, time: time, tokens: tokens, settings: settings, metrics: metrics)
        account = AccountController(store: store, accounts: accounts, service: accountService, relyingPartyID: configuration.relyingPartyID)
        recovery = RecoveryController(
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            accounts: accounts,
            service: accountService,
            limits: limits,
            sessionLifetime: TimeInterval(configuration.recoverySessionLifetimeSeconds)
        )
        email = EmailController(
            time: time,
            sessions: sessions,
            accounts: accounts,
            service: accountService,
            limits: limits,
            sessionLifetime: TimeInterval(configuration.recoverySessionLifetimeSeconds),
            signInURL: (configuration.origins.first ?? "https://\(configuration.relyingPartyID)") + "/"
        )
        mailEvents = MailEventsController(
            settings: configuration.email?.bounces,
            time: time,
            service: accountService,
            bounces: metrics?.mailBounces,
            log: log
        )
        passwords = PasswordController(
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            answers: answers,
            limits: limits,
            verifier: PasswordVerifier(
                limit: configuration.passwords.maximumConcurrentVerifications,
                idle: configuration.passwords.hashesAtIdlePolicy
            ),
            restrictsSessions: configuration.passwords.restrictsSessions,
            retirement: configuration.passwords.retirement,
            stuffing: CredentialStuffingSignals(raised: metrics?.passwordStuffingSignals),
            log: log
        )
        registration = RegistrationController(
            store: store,
            time: time,
            challenges: challenges,
            sessions: sessions,
            settings: settings,
            accounts: accounts,
            service: accountService,
            limits: limits,
            answers: answers,
            metrics: metrics,
            log: log,
            policy: RegistrationPolicy(configuration)
        )
        authentication = AuthenticationController(
            signInOptions: PasskeySignInOptions(
                store: store,
                challenges: challenges,
                decoys: decoys,
                settings: settings,
                limits: limits,
                timeoutMilliseconds: configuration.challengeLifetimeSeconds * 1000
            ),
            store: store,
            time: time,
            sessions: sessions,
            assertions: assertions,
            answers: answers,
            metrics: metrics,
            log: log
        )
        oauthAuthorization = OAuthAuthorizationController(
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            accounts: accounts,
            oidc: configuration.oidc,
            issuer: tokens.issuer,
            staticFiles: staticFiles
        )
        oauthTokens = OAuthTokenController(store: store, time: time, random: random, tokens: tokens, oidc: configuration.oidc, log: log)
        let appleResolver = AppleAccountResolver(
            apple: apple,
            store: store,
            time: time,
            random: random,
            sessions: sessions,
            log: log,
            mail: accountService.mail
        )
        appleSignIn = AppleSignInController(
            resolver: appleResolver,
            challenges: challenges,
            accounts: accounts,
            signInAnswers: answers,
            limits: limits,
            mergeTokens: MergeTokens(challenges: challenges),
            time: time,
            log: log
        )
        appleNotifications = AppleNotificationsController(apple: apple, time: time, accountService: accountService, log: log)
        appleLinks = AppleLinksController(store: store, accounts: accounts, service: accountService)
        admin = AdminController(
            service: AdminService(
                store: store,
                time: time,
                random: random,
                accounts: accountService,
                webhooks: webhooks,
                relyingPartyID: configuration.relyingPartyID,
                enrollmentPageURL: configuration.enrollmentPageURL
            )
        )
        merge = MergeController(
            store: store,
            time: time,
            sessions: sessions,
            challenges: challenges,
            accounts: accounts,
            service: accountService,
            assertions: assertions,
            resolver: appleResolver,
            answers: answers
        )
        let federatedResolver = FederatedAccountResolver(store: store, time: time, random: random, sessions: sessions, mail: accountService.mail)
        federatedSignIn = FederatedSignInController(
            providers: identityProviders,
            resolver: federatedResolver,
            challenges: challenges,
            accounts: accounts,
            signInAnswers: answers,
            limits: limits,
            mergeTokens: MergeTokens(challenges: challenges),
            time: time,
            log: log
        )
        federatedLinks = FederatedLinksController(accounts: accounts, service: accountService)
        webSignIn = WebSignInController(
            flows: WebSignInFlows(
                apple: AppleWebFlow(resolver: appleResolver, time: time),
                providers: identityProviders,
                resolver: federatedResolver,
                time: time
            ),
            challenges: challenges,
            sessions: sessions,
            random: random,
            log: log,
            redirectBase: configuration.tokenIssuer
        )
    }
}
