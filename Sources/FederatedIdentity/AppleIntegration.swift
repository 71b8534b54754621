import AppleSignIn
import BackgroundWork
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPEdge
import Observability
import Storage
import Synchronization

/// Sign in with Apple for one server: token and notification verification against the cached JWKS, and the
/// background work (code exchange, refresh token revocation) that never runs on the request path.
package final class AppleIntegration: Sendable {
    /// Apple's authorization codes are valid for five minutes.
    package static let codeLifetime: TimeInterval = 300
    /// Revocation attempts before an entry is dropped (about a week of backoff).
    package static let maximumRevocationAttempts = 40
    package static let revocationBatchSize = 20
    /// Codes waiting at once; beyond this new codes are dropped (and logged), bounding memory.
    package static let maximumPendingExchanges = 10_000

    package let configuration: AppleConfiguration
    package let verifier: IdentityTokenVerifier
    package let keyCache: AppleKeyCache
    private let service: any AppleService
    private let store: any PasskeyStore
    private let time: any TimeSource
    /// The `.p8` key (client secrets) and the key that seals refresh tokens.
    private let credentials: AppleCredentials
    private let log: Logger
    private let exchanges = Mutex<[PendingCodeExchange]>([])
    package let worker: PeriodicWorker

    package init(
        configuration: AppleConfiguration,
        setup: AppleSetup,
        store: any PasskeyStore,
        time: any TimeSource,
        log: Logger
    ) throws(ConfigurationError) {
        credentials = try AppleCredentials(configuration: configuration, setup: setup, time: time)
        self.configuration = configuration
        self.service = setup.service
        self.store = store
        self.time = time
        self.log = log
        verifier = IdentityTokenVerifier(issuers: configuration.issuers, audiences: configuration.audiences, time: time)
        keyCache = AppleKeyCache(service: setup.service, time: time, log: log)
        let work = WorkBox()
        worker = PeriodicWorker(name: "passkeyd-apple", interval: 15) {
            work.integration?.keyCache.refreshIfDue()
            work.integration?.processDueWork()
        }
        work.integration = self
    }

    /// The thread ends with its owner; without waiting, since the last reference may be dropped on that thread.
    deinit {
        worker.requestStop()
    }

    /// Lets the worker's closure reach the integration without a retain cycle.
    private final class WorkBox: @unchecked Sendable {
        package weak var integration: AppleIntegration?
    }

    /// `integration`, or `503 apple_not_configured` without an `apple` block (nil).
    package static func configured(_ integration: AppleIntegration?) throws(ServerError) -> AppleIntegration {
        guard let integration else { throw ServerError(.appleNotConfigured) }
        return integration
    }

    // MARK: verification

    /// Verifies an identity token; every rejection is `401 invalid_identity_token` with the rule in the log.
    package func verifyIdentityToken(_ token: String, rawNonce: String) throws(ServerError) -> AppleIdentityToken {
        switch try verified({ keys throws(AppleSignInError) in try verifier.verify(token, keys: keys, nonce: .raw(rawNonce)) }) {
        case .success(let claims):
            return claims
        case .failure(let error):
            log("apple sign-in refused: \(error.code): \(error.reason)", event: "apple")
            throw ServerError(.invalidIdentityToken)
        }
    }

    /// Verifies a notification body; nil for a verified event of a type this server does not handle.
    package func verifyNotification(_ body: [UInt8]) throws(ServerError) -> ServerNotification? {
        switch try verified({ keys throws(AppleSignInError) in try ServerNotification(body: body, verifier: verifier, keys: keys) }) {
        case .success(let notification):
            return notification
        case .failure(let error) where error.code == .unsupportedEvent:
            log("apple notification ignored: \(error.code)", event: "apple")
            return nil
        case .failure(let error):
            log("apple notification refused: \(error.code): \(error.reason)", event: "apple")
            let malformed = error.code == .notificationMalformed || error.code == .appleTokenMalformed
            throw malformed ? ServerError(.invalidNotification) : ServerError(.unverifiedNotification)
        }
    }

    /// Runs `body` with the cached keys (503 at once without them). A token naming an unknown key starts a refresh
    /// (at most once a minute) and is then 503, so that its retry meets the new keys; past that it is refused.
    private func verified<Value>(_ body: (JSONWebKeySet) throws(AppleSignInError) -> Value) throws(ServerError) -> Result<Value, AppleSignInError> {
        let now = time.now
        let keys = try keyCache.keys(now: now)
        do throws(AppleSignInError) {
            return .success(try body(keys))
        } catch  where error.code == .unknownKey {
            if keyCache.refreshForUnknownKey(now: now) { throw ServerError(.appleUnavailable, detail: "refreshing the keys for an unknown kid") }
            return .failure(error)
        } catch {
            return .failure(error)
        }
    }

    // MARK: background work

    /// Queues an authorization code for exchange by the worker (with the flow's `redirectURI` for a web flow's code).
    package func enqueueCodeExchange(code: String, subject: String, clientID: String, redirectURI: String? = nil) {
        let now = time.now
        let queued = exchanges.withLock { pending in
            guard pending.count < Self.maximumPendingExchanges else { return false }
            pending.append(
                PendingCodeExchange(
                    subject: subject,
                    clientID: clientID,
                    code: code,
                    redirectURI: redirectURI,
                    expiresAt: now.addingTimeInterval(Self.codeLifetime),
                    notBefore: now
                )
            )
            return true
        }
        guard queued else {
            log.warning("apple code exchange dropped: too many codes waiting", event: "apple")
            return
        }
        worker.wake()
    }

    /// Deletes the identity's refresh tokens and queues each for revocation, in the caller's transaction (unlinking an
    /// identity, deleting an account; with or without an `apple` block, so static).
    /// - Returns: how many were queued.
    package static func queueRevocations(of subject: String, in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Int {
        let tokens = try transaction.deleteAppleRefreshTokens(subject: subject)
        for token in tokens {
            _ = try transaction.enqueueRevocation(token: token.encryptedToken, clientID: token.clientID, notBefore: now)
        }
        return tokens.count
    }

    /// Seals a refresh token for storage; bound to the client ID it was issued to.
    package func seal(refreshToken: String, clientID: String) throws(CryptoError) -> [UInt8] {
        try credentials.seal(refreshToken: refreshToken, clientID: clientID)
    }

    /// One round of background work: due code exchanges, then due revocations. Tests call it directly.
    package func processDueWork() {
        let now = time.now
        let due = exchanges.withLock { pending -> [PendingCodeExchange] in
            let due = pending.filter { $0.notBefore <= now }
            pending.removeAll { $0.notBefore <= now }
            return due
        }
        for exchange in due { process(exchange, now: now) }
        let revocations: [AppleRevocationRecord]
        do throws(StorageError) {
            revocations = try store.dueRevocations(now: now, limit: Self.revocationBatchSize)
        } catch {
            log.warning("apple revocations: \(error.code)", event: "apple")
            return
        }
        for revocation in revocations { process(revocation, now: now) }
    }

    /// A client secret for `clientID` (the token, revoke and migration calls), or nil (logged) when it cannot be made.
    package func clientSecret(for clientID: String) -> String? {
        do throws(AppleSignInError) {
            return try credentials.clientSecret(for: clientID, time: time)
        } catch {
            log.warning("apple client secret: \(error.code)", event: "apple")
            return nil
        }
    }

    private struct TokenReply: Decodable {
        package let refreshToken: String?

        package enum CodingKeys: String, CodingKey {
            case refreshToken = "refresh_token"
        }
    }

    private func process(_ exchange: PendingCodeExchange, now: Date) {
        guard let secret = clientSecret(for: exchange.clientID) else { return }
        let reply = service.exchangeCode(exchange.code, clientID: exchange.clientID, clientSecret: secret, redirectURI: exchange.redirectURI)
        switch reply.status {
        case 200:
            guard let token = (try? JSONDecoder().decode(TokenReply.self, from: Data(reply.body)))?.refreshToken, !token.isEmpty else {
                log("apple code exchange: the reply has no refresh_token", event: "apple")
                return
            }
            keep(refreshToken: token, exchange: exchange, now: now)
        case .some(let status) where status < 500:
            log.warning("apple code exchange refused: status \(status)", event: "apple")
        default:
            var retry = exchange
            retry.attempts += 1
            retry.notBefore = now.addingTimeInterval(Self.backoff(attempts: retry.attempts, base: 5))
            guard retry.notBefore < exchange.expiresAt else {
                log.warning("apple code exchange dropped: Apple unreachable until the code expired", event: "apple")
                return
            }
            log.warning("apple code exchange failed (\(reply.status.map { "status \($0)" } ?? "unreachable")); retrying", event: "apple")
            exchanges.withLock { $0.append(retry) }
        }
    }

    private func keep(refreshToken: String, exchange: PendingCodeExchange, now: Date) {
        do {
            let sealed = try seal(refreshToken: refreshToken, clientID: exchange.clientID)
            try store.transaction { transaction throws(StorageError) in
                // One token per (identity, client ID): the one it replaces is revoked, not forgotten.
                let replaced = try transaction.appleRefreshTokens(subject: exchange.subject).first { $0.clientID == exchange.clientID }
                guard try !transaction.setAppleRefreshToken(subject: exchange.subject, clientID: exchange.clientID, encryptedToken: sealed) else {
                    if let replaced {
                        _ = try transaction.enqueueRevocation(token: replaced.encryptedToken, clientID: replaced.clientID, notBefore: now)
                    }
                    return
                }
                // The identity went away (account deleted) while the code was exchanged: revoke what Apple just issued.
                _ = try transaction.enqueueRevocation(token: sealed, clientID: exchange.clientID, notBefore: now)
            }
        } catch let error as CryptoError {
            log.warning("apple refresh token: \(error.code)", event: "apple")
        } catch let error as StorageError {
            log.warning("apple refresh token: \(error.code)", event: "apple")
        } catch {
            log.warning("apple refresh token: not stored", event: "apple")
        }
    }

    private func process(_ revocation: AppleRevocationRecord, now: Date) {
        let token: [UInt8]
        do throws(CryptoError) {
            token = try credentials.open(revocation.encryptedToken, clientID: revocation.clientID)
        } catch {
            log.warning("apple revocation dropped: \(error.code)", event: "apple")
            try? store.completeRevocation(id: revocation.id)
            return
        }
        let reply = clientSecret(for: revocation.clientID).map {
            service.revokeToken(String(decoding: token, as: UTF8.self), clientID: revocation.clientID, clientSecret: $0)
        }
        do throws(StorageError) {
            if reply?.status == 200 {
                try store.completeRevocation(id: revocation.id)
            } else if revocation.attempts + 1 >= Self.maximumRevocationAttempts {
                log.warning("apple revocation dropped after \(revocation.attempts + 1) attempts", event: "apple")
                try store.completeRevocation(id: revocation.id)
            } else {
                log.warning("apple revocation failed (\(reply?.status.map { "status \($0)" } ?? "unreachable")); retrying", event: "apple")
                try store.rescheduleRevocation(
                    id: revocation.id,
                    notBefore: now.addingTimeInterval(Self.backoff(attempts: revocation.attempts + 1, base: 60))
                )
            }
        } catch {
            log.warning("apple revocation: \(error.code)", event: "apple")
        }
    }

    /// `base` × 2^(attempts − 1), at most six hours.
    package static func backoff(attempts: Int, base: TimeInterval) -> TimeInterval {
        min(21_600, base * pow(2, Double(max(0, min(attempts - 1, 20)))))
    }
}
