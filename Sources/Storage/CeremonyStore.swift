import Foundation

/// The writes that end a successful ceremony, each together with the session it starts and the events that describe
/// them, in one transaction: purpose-built fast paths (one statement on PostgreSQL, one transaction on SQLite)
/// rather than bodies given to `TransactionalStore.transaction`.
///
/// Why one transaction: a client must never be told it signed in unless what it was told is durable, the session
/// and the credential's new counter alike, and no event may be lost or describe a change that was not made; written
/// one after the other, each would cost its own durable commit (an `fsync` on the SQLite store). Written together
/// they cost one, and they are all or nothing.
///
/// Durability: when either method returns, its writes are durable, and so is every write this store made before
/// it, in particular the `takeChallenge` of the same ceremony, which may itself return before it is durable
/// (see `ChallengeStore`). A challenge taken by a ceremony that succeeded therefore never comes back after a crash.
public protocol CeremonyStore: Sendable {
    /// After a successful assertion, atomically: records `update` as `StoreTransaction.recordAuthentication` does
    /// (sets `signCount`, `backupEligible`, `backupState`, `lastUsedAt = usedAt`; ORs in the two warnings), stores
    /// `session` as `StoreTransaction.insertSession` does, and appends `events` in their order; answers the owner's
    /// record as stored at the write (for the answer and the access token).
    ///
    /// Only while the stored credential belongs to `session.userID` and still holds what the verification assumed
    /// (`expecting`: the key, the backup-eligibility flag and the user handle of the record it was verified against,
    /// kept by the node or read for this sign-in), checked in the same statement or transaction as the rest: a
    /// credential deleted and registered again with the same ID and another key between the verification's record and
    /// the write is never signed in with by an assertion of the old key.
    ///
    /// The counter check of WebAuthn §7.2 step 23 holds against the stored counter at the moment of the write, not
    /// only against the one the verification read: when `update.signCount` or the stored counter is non-zero,
    /// `update.signCount` must be greater than the stored counter. Two sign-ins with one credential verified at once,
    /// on one node or on two, thus cannot both pass with the lower counter stored last.
    ///
    /// With `spending`, a sealed challenge's use is stored first, as `ChallengeStore.insertChallenge` stores a
    /// challenge: of any number of concurrent callers spending the same bytes, on any nodes, at most one succeeds.
    ///
    /// - Throws: `storage.challengeSpent` when a challenge with the bytes of `spending` is already stored;
    ///   `storage.credentialChanged` when no credential has this ID, it does not belong to `session.userID` or it does
    ///   not hold `expecting` (checked before the user and the counter); `storage.userDisabled` when the owner is
    ///   disabled; `storage.signCountNotIncreased` when the counter check fails against the stored counter;
    ///   `storage.duplicateKey` when a session with the same token hash or ID is already stored;
    ///   `storage.invalidRecord` for a session or event out of bounds. Nothing changes then, with one exception: after
    ///   `credentialChanged`, `userDisabled` and `signCountNotIncreased`, `spending` is stored (a failed ceremony uses
    ///   its challenge too), so that the caller may verify again from a fresh read and write without spending it a
    ///   second time.
    func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) throws(StorageError) -> UserRecord

    /// After a successful registration, atomically: stores the new account with `credential` as its first credential
    /// when `newUser` is given, or adds `credential` to its existing user when it is nil, stores `session` and appends
    /// `events` in their order.
    ///
    /// - Throws: `storage.usernameTaken` when another user has `newUser.name`; `storage.credentialExists` when a
    ///   credential with `credential.id` exists (for any user; reported before a missing user);
    ///   `storage.duplicateKey` when a user with `newUser.id`, or a session with the same token hash or ID, exists;
    ///   `storage.notFound` when `credential.userID` is not `newUser.id` (or, without `newUser`, not an existing
    ///   user), or `session.userID` is not `credential.userID`; `storage.invalidRecord` for a session or event out of
    ///   bounds. Nothing changes then.
    /// `mail` (the *passkey added* notice) is queued in the same commit, only when the passkey is stored.
    func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError)
}

extension CeremonyStore {
    /// `completeRegistration` without mail.
    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        try completeRegistration(newUser: newUser, credential: credential, session: session, events: events, mail: [])
    }

    /// The rules of `completeRegistration` that need no stored data: the credential belongs to the new user when
    /// there is one, the session to the credential's user, and the session and events are within bounds. For drivers
    /// to check before they write.
    public static func checkRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        if let newUser, credential.userID != newUser.id {
            throw StorageError(.notFound, "the first credential must belong to the new user")
        }
        guard session.userID == credential.userID else {
            throw StorageError(.notFound, "the session must belong to the credential's user")
        }
        try checkBounds(session: session, events: events)
    }

    /// The bounds of a ceremony's session and events. For drivers to check before they write.
    public static func checkBounds(session: SessionRecord, events: [NewEvent]) throws(StorageError) {
        try session.validate()
        for event in events {
            try event.validate()
        }
    }
}
