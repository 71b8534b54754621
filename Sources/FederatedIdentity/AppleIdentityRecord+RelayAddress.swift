import AccountEvents
import Foundation
import Storage

extension AppleIdentityRecord {
    /// After a team transfer Apple gives the identity a new private relay address (relay addresses are per team): the
    /// account's email follows it when it was the identity's old address, so that mail keeps reaching the person.
    /// - Returns: `user.updated` (`changes: ["email"]`) when the account's email changed.
    package func carryRelayAddress(from previous: AppleIdentityRecord, in transaction: any StoreTransaction) throws(StorageError) -> AccountEvent? {
        guard let old = previous.email, let new = email, old != new, isPrivateEmail,
            var user = try transaction.user(id: userID), user.email == old
        else { return nil }
        user.email = new
        _ = try transaction.updateUser(user)
        return .userUpdated(userID: userID, changes: ["email"], externalID: user.externalID)
    }
}
