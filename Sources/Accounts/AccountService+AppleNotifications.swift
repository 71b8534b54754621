import AccountEvents
import AppleSignIn
import FederatedIdentity
import Foundation
import HTTPEdge
import Storage

extension AccountService {
    /// How long the newest applied notification time of a `sub` is kept: an older notification arriving later than
    /// that (Apple retries for days at most) would be applied.
    package static let appleNotificationWatermarkLifetime: TimeInterval = 30 * 86_400

    /// What one of Apple's server-to-server notifications did.
    package enum AppleNotificationOutcome: String {
        case applied
        /// Its `jti` was already applied.
        case replayed
        /// Older than the newest event applied for its `sub` (or, for consent and deletion, than its last sign-in).
        case outOfOrder = "out of order"
        case unknownIdentity = "unknown identity"
        /// Applied already: nothing to change.
        case unchanged
    }

    /// Applies one verified notification of Apple's once and in order per `sub`, in one transaction with its
    /// bookkeeping: `replayKey` (remembered until `until`) makes a repeat a no-op, and the `sub`'s watermark refuses an
    /// older event. Apple's `account-delete` of an account's last way in deletes the account, as `DELETE /me` does.
    package func applyAppleNotification(
        _ event: ServerNotificationEvent,
        replayKey: [UInt8],
        until: Date
    ) throws(ServerError) -> AppleNotificationOutcome {
        let now = time.now
        let (outcome, deletion) = try storage {
            try store.transaction { transaction throws(StorageError) -> (AppleNotificationOutcome, Deletion?) in
                guard try transaction.rememberNonce(replayKey, until: until, now: now) else { return (.replayed, nil) }
                let identity = try transaction.appleIdentity(subject: event.subject)
                var newest = try transaction.appleNotificationWatermark(subject: event.subject, now: now)
                if case .consentRevoked = event, let signedIn = identity?.lastSignInAt { newest = max(newest ?? signedIn, signedIn) }
                if case .accountDeleted = event, let signedIn = identity?.lastSignInAt { newest = max(newest ?? signedIn, signedIn) }
                if let newest, event.time < newest { return (.outOfOrder, nil) }
                try transaction.raiseAppleNotificationWatermark(
                    subject: event.subject,
                    to: event.time,
                    until: now.addingTimeInterval(Self.appleNotificationWatermarkLifetime),
                    now: now
                )
                guard let identity else { return (.unknownIdentity, nil) }
                return try apply(event, to: identity, in: transaction, now: now)
            }
        }
        if let deletion { finish(deletion) }
        return outcome
    }

    /// A notification's change to a known identity, with its events.
    private func apply(
        _ event: ServerNotificationEvent,
        to identity: AppleIdentityRecord,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> (AppleNotificationOutcome, Deletion?) {
        var events: [AccountEvent] = []
        var updated = identity
        switch event {
        case .consentRevoked:
            // Revocation is not deletion: the link stays, so the same sub lands in the same account next time.
            if !identity.consentRevoked { events.append(.appleConsentRevoked(userID: identity.userID, appleUserID: identity.subject)) }
            events += AccountEvent.revocations(of: try transaction.deleteSessions(appleSubject: identity.subject), reason: .appleConsentRevoked)
            _ = try transaction.deleteAppleRefreshTokens(subject: identity.subject)
            updated.consentRevoked = true
        case .accountDeleted:
            let credentials = try transaction.credentials(userID: identity.userID)
            let identities = try transaction.appleIdentities(userID: identity.userID)
            let federated = try transaction.federatedIdentities(userID: identity.userID)
            guard !credentials.isEmpty || identities.count > 1 || !federated.isEmpty else {
                // Nothing else lets the person in: the account goes, as `DELETE /me` does it.
                return (.applied, try delete(userID: identity.userID, reason: .appleAccountDeleted, in: transaction, now: now))
            }
            events += AccountEvent.revocations(of: try transaction.deleteSessions(appleSubject: identity.subject), reason: .appleAccountDeleted)
            _ = try AppleIntegration.queueRevocations(of: identity.subject, in: transaction, now: now)
            _ = try transaction.deleteAppleIdentity(subject: identity.subject)
            events.append(.appleUnlinked(userID: identity.userID, appleUserID: identity.subject, reason: .appleAccountDeleted))
            try transaction.appendEvents(events.map { $0.event(at: now, random: random) })
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
        try transaction.appendEvents(events.map { $0.event(at: now, random: random) })
        return (.applied, nil)
    }
}
