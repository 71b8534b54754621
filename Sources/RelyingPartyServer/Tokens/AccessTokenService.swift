import AccessTokens
import BackgroundWork
import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPEdge
import Observability
import Storage

/// Access tokens for one server: minting with the current key, verifying the deployment's own tokens (signature,
/// claims, and that their session still exists), the JWKS, and the key work of the worker (the schedule, reloading
/// the keys other nodes made, at once when the store announces a change).
final class AccessTokenService: Sendable {
    let settings: TokenSettings
    let issuer: String
    let audiences: [String]
    let ring: SigningKeyRing
    let minter: AccessTokenMinter
    let verifier: AccessTokenVerifier
    private let store: any PasskeyStore
    let time: any TimeSource
    private let log: Logger
    let worker: PeriodicWorker
    /// The store, when it announces changes of the keys (PostgreSQL).
    private let changeFeed: (any SigningKeyChangeFeed)?
    private let work: WorkBox

    init(
        configuration: ServerConfiguration,
        store: any PasskeyStore,
        serverSecret: [UInt8],
        time: any TimeSource,
        random: any RandomSource,
        log: Logger
    ) throws(ConfigurationError) {
        let vault: SigningKeyVault
        do {
            vault = try SigningKeyVault(serverSecret: serverSecret, random: random)
        } catch {
            throw ConfigurationError(.invalidValue, key: "tokens", "the server secret cannot derive the signing keys' sealing key")
        }
        settings = configuration.tokens
        issuer = configuration.tokenIssuer
        audiences = configuration.tokenAudiences
        ring = SigningKeyRing(schedule: SigningKeySchedule(settings: settings, vault: vault), log: log)
        minter = AccessTokenMinter(
            issuer: issuer,
            audiences: audiences,
            clientID: configuration.relyingPartyID,
            lifetime: TimeInterval(settings.lifetimeSeconds),
            subjectRule: settings.subject,
            metadataClaims: settings.metadataClaims,
            random: random
        )
        verifier = AccessTokenVerifier(issuer: issuer, audiences: audiences, ring: ring, highSAcceptedBefore: time.now)
        self.store = store
        self.time = time
        self.log = log
        let work = WorkBox()
        let changeFeed = store as? any SigningKeyChangeFeed
        self.changeFeed = changeFeed
        // Asked after each round: a node whose listener lost its connection polls every 5 s until it listens again.
        worker = PeriodicWorker(
            name: "passkeyd-keys",
            interval: { SigningKeyRing.refreshInterval(for: changeFeed) },
            work: { work.service?.updateKeys() }
        )
        self.work = work
        work.service = self
    }

    /// Starts the worker, woken by every change the store announces.
    func startWorker() {
        changeFeed?.watchSigningKeys { [work] in work.service?.worker.wake() }
        worker.start()
    }

    deinit {
        worker.requestStop()
    }

    private final class WorkBox: @unchecked Sendable {
        weak var service: AccessTokenService?
    }

    /// The worker's round: runs the schedule (making, replacing or deleting keys when due) and loads the result. A
    /// failure is logged and retried next round; the keys already held keep working.
    @discardableResult
    func updateKeys() -> Bool {
        let now = time.now
        do {
            let (change, keys) = try ring.schedule.update(store: store, now: now)
            if let created = change.created { log("signing key \(created) created (\(settings.algorithm.rawValue))", event: "signingKeys") }
            for retired in change.retired { log("signing key \(retired) retired", event: "signingKeys") }
            for deleted in change.deleted { log("signing key \(deleted) deleted", event: "signingKeys") }
            ring.load(keys, at: now)
            return true
        } catch let error as StorageError {
            log.error("signing keys: \(error.code)", event: "signingKeys")
        } catch let error as CryptoError {
            log.error("signing keys: \(error.code)", event: "signingKeys")
        } catch {
            log.error("signing keys: \(error)", event: "signingKeys")
        }
        return false
    }

    /// The ring, loaded first when it is stale (never loaded, or its worker stalled).
    func freshRing(at now: Date) throws(ServerError) -> SigningKeyRing {
        if ring.isStale(at: now), !updateKeys() { throw ServerError(.storageUnavailable, detail: "the signing keys cannot be loaded") }
        return ring
    }

    /// A new access token for the signed-in `subject`.
    func mint(for subject: AccessTokenSubject) throws(ServerError) -> (token: String, expiresAt: Date) {
        let now = time.now
        guard let key = try freshRing(at: now).signingKey(at: now) else {
            throw ServerError(.storageUnavailable, detail: "no signing key is active")
        }
        do {
            return try minter.mint(for: subject, with: key, now: now)
        } catch {
            throw ServerError(.internalError, detail: "minting an access token failed: \(error.code)")
        }
    }

    /// The session an access token speaks for: its signature and claims verify, and its session (`sid`) still exists
    /// for its user (`sub`, as `TokenSubject.names` reads it). Nil otherwise, the reason logged.
    func session(of token: String, logging: Bool = true) throws(ServerError) -> (session: SessionRecord, claims: AccessTokenClaims)? {
        let now = time.now
        _ = try freshRing(at: now)
        let verified = verifier.verify(token, now: now)
        let sessionID = verified.claims.flatMap { Base64URL.decode($0.sid) } ?? Self.nobodysSessionID
        // Looked up whatever the verdict, so that an unknown token costs what a known one costs.
        let session: SessionRecord?
        do {
            session = try store.session(id: sessionID, now: now)
        } catch {
            throw .storage(error)
        }
        guard let claims = verified.claims else {
            if logging { log("access token refused: \(verified.failure ?? "")", event: "token") }
            return nil
        }
        guard let session,
            try settings.subject.names(
                claims.sub,
                userID: session.userID,
                externalID: { () throws(ServerError) in try externalID(of: session.userID) }
            )
        else {
            if logging { log("access token refused: its session has ended", event: "token") }
            return nil
        }
        return (session, claims)
    }

    /// The account's external id, for a `sub` that is not its passkeyd id.
    func externalID(of userID: [UInt8]) throws(ServerError) -> String? {
        try storage { try store.user(id: userID) }?.externalID
    }

    /// Not a session ID (IDs are 16 bytes): the lookup of a token without a `sid` finds nothing.
    private static let nobodysSessionID = [UInt8](repeating: 0, count: 17)

    /// The JWKS document (RFC 7517 §5) of the keys published at `now`.
    func jwks() throws(ServerError) -> [PublicKeyJWK] {
        let now = time.now
        return try freshRing(at: now).publishedKeys(at: now).map(\.jwk)
    }

    /// How long a client may cache the JWKS: a quarter of the pre-publication window, at most five minutes, so that a
    /// verifier refetches well before a new key signs.
    var jwksMaxAge: Int { min(300, settings.lifetimeSeconds / 4) }
}
