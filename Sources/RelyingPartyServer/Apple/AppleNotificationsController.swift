import AppleSignIn
import CryptoCore
import Foundation
import HTTPServer
import JSON
import Observability
import Storage
import WebAuthnCore

/// Apple's server-to-server notifications: consent revoked, Apple account deleted, email relay disabled or enabled.
struct AppleNotificationsController: Sendable {
    /// How long the newest applied notification time of a `sub` is kept: an older notification arriving later than
    /// that (Apple retries for days at most) would be applied.
    static let notificationWatermarkLifetime: TimeInterval = 30 * 86_400

    /// What one notification did.
    enum NotificationOutcome: String {
        case applied
        /// Its `jti` was already applied.
        case replayed
        /// Older than the newest event applied for its `sub` (or, for consent and deletion, than its last sign-in).
        case outOfOrder = "out of order"
        case unknownIdentity = "unknown identity"
        /// Applied already: nothing to change.
        case unchanged
    }

    /// Sign in with Apple; nil without an `apple` block.
    let apple: AppleIntegration?
    let store: any PasskeyStore
    let time: any TimeSource
    /// Apple's `account-delete` of an account's last way in deletes the account.
    let accountService: AccountService
    let log: Logger

    /// `POST /auth/apple/notifications`: Apple's server-to-server events, each applied once and in order per `sub`, in
    /// one transaction with its bookkeeping; 200 for every verified notification, whatever it changed.
    func receive(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let apple = try AppleIntegration.configured(self.apple)
        guard StrictJSONParser.isStrict(request.body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        guard let notification = try apple.verifyNotification(request.body) else { return JSONBody.ok(["received": true]) }
        let now = time.now
        // The jti identifies the notification; without one, its signed payload does.
        let identifier = notification.jwtID.map { "jti:" + $0 } ?? "payload:" + Hex.encode(DigestAlgorithm.sha256.hash(request.body))
        let key = DigestAlgorithm.sha256.hash(Array("passkeyd apple notification:\(identifier)".utf8))
        let until = max(notification.expiresAt, now).addingTimeInterval(apple.verifier.leewaySeconds)
        let event = notification.event
        let (outcome, deletion) = try storage {
            try store.transaction { transaction throws(StorageError) -> (NotificationOutcome, AccountService.Deletion?) in
                guard try transaction.rememberNonce(key, until: until, now: now) else { return (.replayed, nil) }
                let identity = try transaction.appleIdentity(subject: event.subject)
                var newest = try transaction.appleNotificationWatermark(subject: event.subject, now: now)
                if case .consentRevoked = event, let signedIn = identity?.lastSignInAt { newest = max(newest ?? signedIn, signedIn) }
                if case .accountDeleted = event, let signedIn = identity?.lastSignInAt { newest = max(newest ?? signedIn, signedIn) }
                if let newest, event.time < newest { return (.outOfOrder, nil) }
                try transaction.raiseAppleNotificationWatermark(
                    subject: event.subject,
                    to: event.time,
                    until: now.addingTimeInterval(Self.notificationWatermarkLifetime),
                    now: now
                )
                guard let identity else { return (.unknownIdentity, nil) }
                return try apply(event, to: identity, in: transaction, now: now)
            }
        }
        if let deletion { accountService.finish(deletion) }
        log("apple notification: \(event.typeName) (\(outcome.rawValue))", event: "apple")
        return JSONBody.ok(["received": true])
    }

    /// A notification's change to a known identity, with its events.
    private func apply(
        _ event: ServerNotificationEvent,
        to identity: AppleIdentityRecord,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> (NotificationOutcome, AccountService.Deletion?) {
        var events: [AccountEvent] = []
        var updated = identity
        switch event {
        case .consentRevoked:
            // Revocation is not deletion: the link stays, so the same sub lands in the same account next time.
            if !identity.consentRevoked { events.append(.appleConsentRevoked(userID: identity.userID, appleUserID: identity.subject)) }
            for session in try transaction.deleteSessions(appleSubject: identity.subject) {
                events.append(.sessionRevoked(session, reason: .appleConsentRevoked))
            }
            _ = try transaction.deleteAppleRefreshTokens(subject: identity.subject)
            updated.consentRevoked = true
        case .accountDeleted:
            let credentials = try transaction.credentials(userID: identity.userID)
            let identities = try transaction.appleIdentities(userID: identity.userID)
            let federated = try transaction.federatedIdentities(userID: identity.userID)
            guard !credentials.isEmpty || identities.count > 1 || !federated.isEmpty else {
                // Nothing else lets the person in: the account goes, as `DELETE /me` does it.
                return (.applied, try accountService.delete(userID: identity.userID, reason: .appleAccountDeleted, in: transaction, now: now))
            }
            for session in try transaction.deleteSessions(appleSubject: identity.subject) {
                events.append(.sessionRevoked(session, reason: .appleAccountDeleted))
            }
            _ = try AppleIntegration.queueRevocations(of: identity.subject, in: transaction, now: now)
            _ = try transaction.deleteAppleIdentity(subject: identity.subject)
            events.append(.appleUnlinked(userID: identity.userID, appleUserID: identity.subject, reason: .appleAccountDeleted))
            try transaction.appendEvents(events.map { $0.event(at: now, random: accountService.random) })
            return (.applied, nil)
        case .emailDisabled:
            if !identity.emailDisabled { events.append(.appleEmailDisabled(userID: identity.userID, appleUserID: identity.subject)) }
            updated.emailDisabled = true
        case .emailEnabled:
            if identity.emailDisabled { events.append(.appleEmailEnabled(userID: identity.userID, appleUserID: identity.subject)) }
            updated.emailDisabled = false
        }
        guard updated != identity || !events.isEmpty else { return (.unchanged, nil) }
        _ = try transaction.updateAppleIdentity(updated, subject: identity.subject)
        try transaction.appendEvents(events.map { $0.event(at: now, random: accountService.random) })
        return (.applied, nil)
    }
}

extension ServerNotificationEvent {
    /// Apple's name of the event type, for the log.
    var typeName: String {
        switch self {
        case .consentRevoked: "consent-revoked"
        case .accountDeleted: "account-delete"
        case .emailDisabled: "email-disabled"
        case .emailEnabled: "email-enabled"
        }
    }
}
