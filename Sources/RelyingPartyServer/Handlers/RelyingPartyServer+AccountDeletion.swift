import Foundation
import Storage

extension RelyingPartyServer {
    /// Deletes an account, the one way every path does it (`DELETE /me`, Apple's `account-delete`): in one
    /// transaction, queues the revocation of every Apple refresh token it holds (App Store guideline 5.1.1(v)), deletes
    /// the account with all its rows and appends `user.deleted`; then drops its passkeys' cached keys and wakes the
    /// revocation worker. Deleting an account that is already gone changes nothing and emits nothing.
    func deleteAccount(userID: [UInt8], reason: AccountEvent.DeletionReason) throws(ServerError) {
        let now = time.now
        let (credentials, queuedRevocations) = try storage {
            try store.transaction { transaction throws(StorageError) -> ([CredentialRecord], Bool) in
                let credentials = try transaction.credentials(userID: userID)
                var queued = false
                for identity in try transaction.appleIdentities(userID: userID) {
                    guard let token = identity.encryptedRefreshToken, let clientID = identity.refreshTokenClientID else { continue }
                    _ = try transaction.enqueueRevocation(token: token, clientID: clientID, notBefore: now)
                    queued = true
                }
                guard try transaction.deleteUser(id: userID) else { return ([], false) }
                try transaction.appendEvent(AccountEvent.userDeleted(userID: userID, reason: reason).event(at: now))
                return (credentials, queued)
            }
        }
        credentials.forEach { keys.remove($0.id) }
        if queuedRevocations { apple?.worker.wake() }
    }
}
