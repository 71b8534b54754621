import Foundation
import Storage

extension RelyingPartyServer {
    /// Deletes an account (`AccountService.delete`), for the handlers not yet in a controller.
    func deleteAccount(
        userID: [UInt8],
        reason: AccountEvent.DeletionReason,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> AccountService.Deletion? {
        try accountService.delete(userID: userID, reason: reason, in: transaction, now: now)
    }

    /// Deletes the Apple identity's refresh tokens and queues each for revocation (`AccountService.queueRevocations`).
    func queueRevocations(of subject: String, in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Int {
        try accountService.queueRevocations(of: subject, in: transaction, now: now)
    }

    /// After a deletion's commit (`AccountService.finish`).
    func finish(_ deletion: AccountService.Deletion) {
        accountService.finish(deletion)
    }
}
