import AccountEvents
import Foundation
import Storage

extension AccountService {
    /// What disabling or enabling `user` writes besides its row, in the transaction of the change: every session of
    /// the account ends (`session.revoked`, reason `user_disabled`) and every OpenID grant with its refresh tokens and
    /// codes, then `user.disabled` or `user.enabled`. Enabling ends them too: a disabled account has none but what a
    /// sign-in racing the change left (which no lookup ever accepted), and none of those may come back to life.
    package func recordDisabledChange(of user: UserRecord, in transaction: any StoreTransaction, at now: Date) throws(StorageError) {
        let ended = try transaction.deleteSessions(userID: user.id, except: nil).filter { now < $0.expiresAt }
        try transaction.appendEvents(AccountEvent.revocations(of: ended, reason: .userDisabled).map { $0.event(at: now, random: random) })
        _ = try transaction.deleteOAuthGrants(userID: user.id)
        let event: AccountEvent =
            user.disabled ? .userDisabled(userID: user.id, externalID: user.externalID) : .userEnabled(userID: user.id, externalID: user.externalID)
        try transaction.appendEvent(event.event(at: now, random: random))
    }
}
