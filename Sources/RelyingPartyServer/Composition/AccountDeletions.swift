import CryptoCore
import Foundation
import Observability
import Storage

/// Deleting an account, the one way every path does it (`DELETE /me`, the admin API, Apple's `account-delete` of its
/// last way in): the rows in one transaction, then what is left to do after the commit.
struct AccountDeletions: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    /// The cached keys of passkeys, dropped for the deleted ones.
    let keys: CredentialKeyCache
    /// Sign in with Apple (its worker revokes the queued refresh tokens); nil without an `apple` block.
    let apple: AppleIntegration?
    let log: Logger

    /// What deleting an account left to do after its transaction committed.
    struct Deletion {
        /// The deleted passkeys, whose cached keys are dropped.
        let credentialIDs: [[UInt8]]
        /// How many Apple refresh tokens were queued for revocation.
        let queuedRevocations: Int
        /// How many Apple identities the account had.
        let appleIdentities: Int
    }

    /// Deletes an account in one transaction, then `finish`.
    func delete(userID: [UInt8], reason: AccountEvent.DeletionReason) throws(ServerError) {
        let now = time.now
        let deletion = try storage {
            try store.transaction { transaction throws(StorageError) in try delete(userID: userID, reason: reason, in: transaction, now: now) }
        }
        if let deletion { finish(deletion) }
    }

    /// The rows of an account deletion, in the caller's transaction: queues the revocation of every Apple refresh token
    /// the account holds, one per identity and client ID (App Store guideline 5.1.1(v)), deletes the account with all
    /// its rows and appends `user.deleted`. Nil, changing nothing, when the account is already gone.
    func delete(
        userID: [UInt8],
        reason: AccountEvent.DeletionReason,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> Deletion? {
        let credentials = try transaction.credentials(userID: userID)
        let identities = try transaction.appleIdentities(userID: userID)
        var queued = 0
        for identity in identities {
            queued += try AppleIntegration.queueRevocations(of: identity.subject, in: transaction, now: now)
        }
        guard try transaction.deleteUser(id: userID) else { return nil }
        try transaction.appendEvent(AccountEvent.userDeleted(userID: userID, reason: reason).event(at: now))
        return Deletion(credentialIDs: credentials.map(\.id), queuedRevocations: queued, appleIdentities: identities.count)
    }

    /// After the commit: drops the passkeys' cached keys, wakes the revocation worker, and says when an account with
    /// Sign in with Apple held no refresh token to revoke (the app never sent an `authorizationCode`).
    func finish(_ deletion: Deletion) {
        deletion.credentialIDs.forEach { keys.remove($0) }
        if deletion.queuedRevocations > 0 {
            apple?.worker.wake()
        } else if deletion.appleIdentities > 0 {
            log("account deleted: no Apple refresh token was held, so none is revoked (the app never sent an authorizationCode)", event: "apple")
        }
    }
}
