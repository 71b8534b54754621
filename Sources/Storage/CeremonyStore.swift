import Foundation

/// The writes that end a successful ceremony, each together with the session it starts, in one transaction.
///
/// Why one transaction: a client must never be told it signed in unless what it was told is durable, the session
/// and the credential's new counter alike; written one after the other, each would cost its own durable commit
/// (an `fsync` on the SQLite store). Written together they cost one, and they are all or nothing.
///
/// Durability: when either method returns, its writes are durable, and so is every write this store made before
/// it, in particular the `takeChallenge` of the same ceremony, which may itself return before it is durable
/// (see `ChallengeStore`). A challenge taken by a ceremony that succeeded therefore never comes back after a crash.
public protocol CeremonyStore: Sendable {
    /// After a successful assertion, atomically: records it as `recordAuthentication` does with `cloneWarning`
    /// false (sets `signCount`, `backupEligible`, `backupState`, `lastUsedAt = usedAt`; ORs in
    /// `backupEligibilityChanged`), and stores `session` as `createSession` does.
    ///
    /// The counter check of WebAuthn §7.2 step 23 holds against the stored counter at the moment of the write, not
    /// only against the one the verification read: when `signCount` or the stored counter is non-zero, `signCount`
    /// must be greater than the stored counter. Two sign-ins with one credential verified at once, on one node or
    /// on two, thus cannot both pass with the lower counter stored last.
    ///
    /// - Throws: `storage.notFound` when no credential has this ID or it does not belong to `session.userID`;
    ///   `storage.signCountNotIncreased` when the counter check fails against the stored counter;
    ///   `storage.duplicateKey` when a session with the same token hash is already stored. Nothing changes then.
    func completeAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        backupEligibilityChanged: Bool,
        session: SessionRecord
    ) throws(StorageError)

    /// After a successful registration, atomically: stores the new account with `credential` as its first
    /// credential (`createUser(_:firstCredential:)`) when `newUser` is given, or adds `credential` to its existing
    /// user (`addCredential`) when it is nil, and stores `session` as `createSession` does.
    ///
    /// - Throws: what those calls throw (`storage.usernameTaken`, `storage.credentialExists`, `storage.notFound`,
    ///   `storage.duplicateKey`), and `storage.notFound` when `session.userID` is not `credential.userID`.
    ///   Nothing changes then.
    func completeRegistration(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError)
}

extension CeremonyStore {
    /// The ownership rules of `completeRegistration` that need no stored data: the credential belongs to the new user
    /// when there is one, and the session to the credential's user. For drivers to check before they write.
    public static func checkRegistrationOwnership(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError) {
        if let newUser, credential.userID != newUser.id {
            throw .notFound("the first credential must belong to the new user")
        }
        guard session.userID == credential.userID else {
            throw .notFound("the session must belong to the credential's user")
        }
    }
}
