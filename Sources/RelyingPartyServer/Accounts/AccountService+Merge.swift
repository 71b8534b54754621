import AccountEvents
import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import Storage

extension AccountService {
    /// How a merge with a chosen survivor ended.
    enum MergeOutcome {
        /// The proof was replayed (or its passkey's counter did not increase), or either account is gone: nothing of
        /// the accounts was written.
        case proofRejected
        /// The survivor as it is now, and the session that continues the signed-in one when there was one to continue.
        case merged(survivor: UserRecord, issued: SessionService.Issued?)
    }

    /// What a merge's transaction wrote: the survivor as it is now, the continuing session, the passkeys it moved.
    typealias Merged = (survivor: UserRecord, issued: SessionService.Issued?, movedPasskeys: [[UInt8]])

    /// A merge without a chosen survivor (`409 merge_conflict`): accepts the proof and reads both accounts' summaries,
    /// in one transaction.
    /// - Returns: the summaries of the signed-in account (`current`) and of the one the proof identifies, or nil when
    ///   the proof was replayed or either account is gone.
    func mergeSummaries(current currentID: [UInt8], proof: MergeProof) throws(ServerError) -> (current: MergeSummary, other: MergeSummary)? {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> (current: MergeSummary, other: MergeSummary)? in
                guard try proof.accept(in: transaction, now: now) else { return nil }
                guard let current = try summary(of: currentID, in: transaction), let other = try summary(of: proof.otherUserID, in: transaction)
                else { return nil }
                return (current, other)
            }
        }
    }

    /// Merges the account `goneID` into `survivorID` in ONE transaction with the acceptance of the proof
    /// (`merge(_:into:continuation:in:now:)`), then says so in the log. `continuation` is the session that continues the
    /// signed-in one when that was the gone account's.
    func merge(
        _ goneID: [UInt8],
        into survivorID: [UInt8],
        proof: MergeProof,
        continuation: (issued: SessionService.Issued, record: SessionRecord)?
    ) throws(ServerError) -> MergeOutcome {
        let now = time.now
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> Merged? in
                guard try proof.accept(in: transaction, now: now) else { return nil }
                return try merge(goneID, into: survivorID, continuation: continuation, in: transaction, now: now)
            }
        }
        guard let (survivor, issued, moved) = outcome else { return .proofRejected }
        moved.forEach(forget(passkey:))
        log("accounts merged", event: "account")
        return .merged(survivor: survivor, issued: issued)
    }

    /// An administrator's merge (`POST /admin/users/{id}/merge`, `passkeyd admin users merge`): `goneID` into
    /// `survivorID` in one transaction, as a person's merge does it but without a proof, the admin key being the
    /// authority. The gone account's sessions end; nobody's session continues.
    /// - Returns: the survivor as it is now, or nil when either account is gone.
    func merge(_ goneID: [UInt8], into survivorID: [UInt8]) throws(ServerError) -> UserRecord? {
        let now = time.now
        let merged = try storage {
            try store.transaction { transaction throws(StorageError) -> Merged? in
                try merge(goneID, into: survivorID, continuation: nil, in: transaction, now: now)
            }
        }
        guard let (survivor, _, moved) = merged else { return nil }
        moved.forEach(forget(passkey:))
        log("accounts merged by an administrator", event: "account")
        return survivor
    }

    /// The merge's writes: the survivor receives every passkey and Apple identity of the other account (and its
    /// display name or email when its own are a default or absent), the other account is deleted with its sessions
    /// (no Apple revocation: its identities moved), and `continuation`, a session for the survivor that continues the
    /// signed-in one when that was the other account's, is stored. Nil, changing nothing, when either account is gone.
    /// The caller forgets the moved passkeys (`forget(passkey:)`) once the transaction committed: their kept sign-in
    /// records name the gone account.
    func merge(
        _ goneID: [UInt8],
        into survivorID: [UInt8],
        continuation: (issued: SessionService.Issued, record: SessionRecord)?,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> Merged? {
        guard var survivor = try transaction.user(id: survivorID), let gone = try transaction.user(id: goneID) else { return nil }
        // A disabled account's passkeys and identities never move to an account that can sign in, nor the other way.
        guard !survivor.disabled, !gone.disabled else { throw StorageError(.userDisabled, "a merged account is disabled") }
        var events: [AccountEvent] = []
        let moved = try transaction.credentials(userID: goneID).map(\.id)
        _ = try transaction.moveCredentials(from: goneID, to: survivorID)
        _ = try transaction.moveAppleIdentities(from: goneID, to: survivorID)
        _ = try transaction.moveFederatedIdentities(from: goneID, to: survivorID)
        events += AccountEvent.revocations(of: try transaction.deleteSessions(userID: goneID, except: nil), reason: .merged)
        let name = gone.displayNameIsDefault ? nil : gone.displayName
        if let update = survivor.filledIn(displayName: name, email: gone.email, emailVerified: gone.emailVerified) {
            _ = try transaction.updateUser(update.user)
            survivor = update.user
            events.append(.userUpdated(userID: survivorID, changes: update.changes))
        }
        _ = try transaction.deleteUser(id: goneID)
        events.append(.userMerged(userID: survivorID, previousUserID: goneID))
        var issued: SessionService.Issued?
        if let session = continuation {
            try transaction.insertSession(session.record)
            events.append(.sessionCreated(session.record))
            issued = session.issued
        }
        try transaction.appendEvents(events.map { $0.event(at: now, random: random) })
        return (survivor, issued, moved)
    }

    /// Whether the signed-in account holds nothing a merge could lose (issue 43 item 14): it was made by the very sign-in
    /// of `session` (the session proved who the person is when the account was created), and has no passkey, no
    /// password, no recovery codes and at most the one identity it signed in with. A merge without `keep` then goes
    /// ahead into the other account instead of asking.
    func holdsNothingToLose(_ user: UserRecord, session: SessionRecord) throws(ServerError) -> Bool {
        guard session.userID == user.id, abs(session.authenticatedAt.timeIntervalSince(user.createdAt)) < 1 else { return false }
        return try storage {
            try store.transaction { transaction throws(StorageError) -> Bool in
                let apple = try transaction.appleIdentities(userID: user.id).count
                let federated = try transaction.federatedIdentities(userID: user.id).count
                let passkeys = try transaction.credentials(userID: user.id).count
                let password = try transaction.passwordHash(userID: user.id)
                let recoveryCodes = try transaction.recoveryCodeCount(userID: user.id)
                return passkeys == 0 && apple + federated <= 1 && password == nil && recoveryCodes == 0
            }
        }
    }

    /// An account's merge summary, or nil when it is gone.
    func summary(of userID: [UInt8], in transaction: any StoreTransaction) throws(StorageError) -> MergeSummary? {
        guard let user = try transaction.user(id: userID) else { return nil }
        let credentials = try transaction.credentials(userID: userID)
        let identities = try transaction.appleIdentities(userID: userID)
        return MergeSummary(
            createdAt: user.createdAt,
            lastSignInAt: (credentials.compactMap(\.lastUsedAt) + identities.compactMap(\.lastSignInAt)).max(),
            passkeys: credentials.count,
            appleLinked: !identities.isEmpty
        )
    }
}
