import Foundation
import Storage

extension AccountService {
    /// How unlinking an identity at an OpenID provider ended.
    enum FederatedUnlink: Equatable {
        case unlinked
        /// The account has no identity of that provider with that subject.
        case notFound
        /// It is the account's only way in (no passkey, no other identity, no Apple identity).
        case lastSignInMethod
    }

    /// Unlinks the account's identity that `provider` (the configured name) gave with `subject`, in one transaction
    /// with its `identity.unlinked` event (and a security notice to the verified address). Refused, changing nothing, when it is the account's last way in. The sessions
    /// it signed in stay: they are the account's.
    func unlinkFederatedIdentity(provider: String, subject: String, from userID: [UInt8]) throws(ServerError) -> FederatedUnlink {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> FederatedUnlink in
                let identities = try transaction.federatedIdentities(userID: userID)
                guard let identity = identities.first(where: { $0.provider == provider && $0.subject == subject }) else { return .notFound }
                let appleIdentities = try transaction.appleIdentities(userID: userID)
                let passkeys = try transaction.credentials(userID: userID)
                guard identities.count > 1 || !appleIdentities.isEmpty || !passkeys.isEmpty else { return .lastSignInMethod }
                _ = try transaction.deleteFederatedIdentity(issuer: identity.issuer, subject: identity.subject)
                let event = AccountEvent.identityUnlinked(userID: userID, provider: provider, issuer: identity.issuer, subject: identity.subject)
                try transaction.appendEvent(event.event(at: now, random: random))
                try queueNotice(.identityUnlinked, userID: userID, in: transaction, now: now)
                return .unlinked
            }
        }
    }
}
