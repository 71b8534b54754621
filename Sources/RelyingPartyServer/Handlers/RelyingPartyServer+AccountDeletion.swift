import Foundation
import Storage

extension RelyingPartyServer {
    /// What deleting an account left to do after its transaction committed (`AccountDeletions.Deletion`).
    typealias AccountDeletion = AccountDeletions.Deletion

    /// Account deletion, as every path does it (`AccountDeletions`).
    var accountDeletions: AccountDeletions {
        AccountDeletions(store: store, time: time, keys: keys, apple: apple, log: log)
    }

    /// Deletes an account, the one way every path does it (`DELETE /me`, Apple's `account-delete` of its last way in):
    /// in one transaction, then `finish` (`AccountDeletions.delete`).
    func deleteAccount(userID: [UInt8], reason: AccountEvent.DeletionReason) throws(ServerError) {
        try accountDeletions.delete(userID: userID, reason: reason)
    }

    /// The rows of an account deletion, in the caller's transaction (`AccountDeletions.delete`).
    func deleteAccount(
        userID: [UInt8],
        reason: AccountEvent.DeletionReason,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> AccountDeletion? {
        try accountDeletions.delete(userID: userID, reason: reason, in: transaction, now: now)
    }

    /// After the commit of an account deletion (`AccountDeletions.finish`).
    func finish(_ deletion: AccountDeletion) {
        accountDeletions.finish(deletion)
    }
}
