import CryptoCore
import Foundation
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
        metrics: ServerMetrics?
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
    }
}
