import FederatedIdentity
import Foundation
import Storage

/// The other account of a merge, as its proof identified it, and what accepting the proof writes.
package struct MergeProof {
    package enum Acceptance {
        /// Nothing to write: a merge token is single-use by being taken.
        case taken
        /// An Apple identity token: its nonce and itself are remembered.
        case apple(AppleReplayGuard)
        /// A passkey assertion: its counter and flags are recorded (§7.2 step 23 checked again at the write).
        case passkey(AuthenticationUpdate, owner: [UInt8])
    }

    package let otherUserID: [UInt8]
    package let acceptance: Acceptance

    package init(otherUserID: [UInt8], acceptance: Acceptance) {
        self.otherUserID = otherUserID
        self.acceptance = acceptance
    }

    /// Writes what accepting the proof writes, in the merge's transaction; false when it was replayed or the
    /// passkey's counter did not increase after all.
    package func accept(in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Bool {
        switch acceptance {
        case .taken:
            return true
        case .apple(let replay):
            return try replay.remember(in: transaction, now: now)
        case .passkey(let update, let owner):
            guard let credential = try transaction.credential(id: update.credentialID), credential.userID == owner else { return false }
            guard update.signCount == 0 && credential.signCount == 0 || update.signCount > credential.signCount else { return false }
            try transaction.recordAuthentication(update)
            return true
        }
    }
}
