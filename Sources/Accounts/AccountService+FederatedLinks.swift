import AccountEvents
import Foundation
import HTTPEdge
import Storage

extension AccountService {
    /// How unlinking an identity at an OpenID provider ended.
    package enum FederatedUnlink: Equatable {
        /// Unlinked: the sessions it signed in ended (`endedSessionIDs`).
        case unlinked(endedSessionIDs: [[UInt8]])
        /// The account has no identity of that provider with that subject.
        case notFound
        /// It is the account's only way in (no passkey, no other identity, no Apple identity).
        case lastSignInMethod
    }

    /// Unlinks the account's identity that `provider` (the configured name) gave with `subject`, in one transaction:
    /// ends the sessions it signed in (`session.revoked`, `identity_unlinked`), deletes the identity and appends
    /// `identity.unlinked` (and a security notice to the verified address). Refused, changing nothing, when it is the
    /// account's last way in.
    package func unlinkFederatedIdentity(provider: String, subject: String, from userID: [UInt8]) throws(ServerError) -> FederatedUnlink {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> FederatedUnlink in
                let identities = try transaction.federatedIdentities(userID: userID)
                guard let identity = identities.first(where: { $0.provider == provider && $0.subject == subject }) else { return .notFound }
                let appleIdentities = try transaction.appleIdentities(userID: userID)
                let passkeys = try transaction.credentials(userID: userID)
                guard identities.count > 1 || !appleIdentities.isEmpty || !passkeys.isEmpty else { return .lastSignInMethod }
                let ended = try transaction.deleteSessions(federatedIssuer: identity.issuer, subject: identity.subject)
                var events = AccountEvent.revocations(of: ended.filter { now < $0.expiresAt }, reason: .identityUnlinked)
                _ = try transaction.deleteFederatedIdentity(issuer: identity.issuer, subject: identity.subject)
                events.append(.identityUnlinked(userID: userID, provider: provider, issuer: identity.issuer, subject: identity.subject))
                try transaction.appendEvents(events.map { $0.event(at: now, random: random) })
                try queueNotice(.identityUnlinked, userID: userID, in: transaction, now: now)
                return .unlinked(endedSessionIDs: ended.map(\.id))
            }
        }
    }
}
