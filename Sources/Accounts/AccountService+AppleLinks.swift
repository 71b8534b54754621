import AccountEvents
import FederatedIdentity
import Foundation
import HTTPEdge
import Storage

extension AccountService {
    /// How unlinking an Apple identity from an account ended.
    package enum AppleUnlink: Equatable {
        /// Unlinked: its sessions ended (`endedSessionIDs`), its refresh tokens queued for revocation.
        case unlinked(endedSessionIDs: [[UInt8]])
        /// The account has no such identity.
        case notFound
        /// It is the account's only way in (no other identity, no passkey).
        case lastSignInMethod
    }

    /// Unlinks the Apple identity `subject` from the account, in one transaction: ends the sessions it made
    /// (`session.revoked`, `apple_unlinked`), queues the revocation of its refresh tokens, deletes the identity and
    /// appends `apple.unlinked` (`reason: user`) with a security notice to the verified address; then wakes the revocation worker. Refused, changing nothing, when it is
    /// the account's last way in.
    package func unlinkAppleIdentity(_ subject: String, from userID: [UInt8]) throws(ServerError) -> AppleUnlink {
        let now = time.now
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> AppleUnlink in
                let identities = try transaction.appleIdentities(userID: userID)
                guard identities.contains(where: { $0.subject == subject }) else { return .notFound }
                let passkeys = try transaction.credentials(userID: userID)
                let federated = try transaction.federatedIdentities(userID: userID)
                guard identities.count > 1 || !passkeys.isEmpty || !federated.isEmpty else { return .lastSignInMethod }
                var events: [AccountEvent] = []
                let ended = try transaction.deleteSessions(appleSubject: subject)
                events += AccountEvent.revocations(of: ended, reason: .appleUnlinked)
                _ = try AppleIntegration.queueRevocations(of: subject, in: transaction, now: now)
                _ = try transaction.deleteAppleIdentity(subject: subject)
                events.append(.appleUnlinked(userID: userID, appleUserID: subject, reason: .user))
                try transaction.appendEvents(events.map { $0.event(at: now, random: random) })
                try queueNotice(.identityUnlinked, userID: userID, in: transaction, now: now)
                return .unlinked(endedSessionIDs: ended.map(\.id))
            }
        }
        if case .unlinked = outcome { apple?.worker.wake() }
        return outcome
    }
}
