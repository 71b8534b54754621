import Foundation

/// The record-level reads and writes of one transaction (`TransactionalStore.transaction`). Each operation is atomic
/// on its own; the transaction makes a body of them atomic together. Reads see the transaction's own writes.
///
/// Compound account operations (deleting an account, linking, merging, revoking sessions) are written once, on top of
/// these, driver-independently (see `deleteCredentialUnlessLast` and the server's account service), and append the
/// event that describes them in the same transaction.
public protocol StoreTransaction:
    UserTransactions,
    CredentialTransactions,
    SessionTransactions,
    AccountRecoveryTransactions,
    PasswordTransactions,
    AppleIdentityTransactions,
    FederatedIdentityTransactions,
    AppleReplayGuardTransactions,
    SigningKeyTransactions,
    OpenIDProviderTransactions,
    EventTransactions,
    WebhookTransactions,
    MailOutboxTransactions,
    MailBounceTransactions,
    EmailTokenTransactions
{}

extension StoreTransaction {
    /// The writes of `CeremonyStore.completeRegistration`, record by record, for the drivers whose ceremony is a
    /// transaction of record operations (in memory, SQLite; PostgreSQL writes them as one statement). The caller has
    /// checked `CeremonyStore.checkRegistration`.
    public func insertRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        if let newUser {
            try insertUser(newUser)
        }
        try insertCredential(credential)
        try insertSession(session)
        try appendEvents(events)
    }

    /// Re-keys an Apple identity to the recipient team's `sub` after an app transfer, with what follows it: writes
    /// `identity` (with its new subject) over the one with `subject`, makes the sessions it signed in name the new
    /// subject, and drops the sending team's refresh tokens (the recipient team cannot revoke them).
    /// - Returns: false, changing nothing, when there is no identity with `subject`.
    /// - Throws: what `updateAppleIdentity` throws (`storage.appleIdentityTaken` when the new subject is another's).
    public func reKeyAppleIdentity(_ identity: AppleIdentityRecord, from subject: String) throws(StorageError) -> Bool {
        guard try updateAppleIdentity(identity, subject: subject) else { return false }
        _ = try moveSessions(appleSubject: subject, to: identity.subject)
        _ = try deleteAppleRefreshTokens(subject: identity.subject)
        return true
    }

    /// Deletes the user's credential, refusing to delete the account's last way to sign in: the credential is kept
    /// when it is the user's only one and no Apple or federated identity is linked (a consent-revoked identity counts: signing in
    /// with it again lands in the account). In a transaction, so the check and the delete
    /// are one serial step: two concurrent deletions of an account's two passkeys, on one node or two, leave one.
    /// - Returns: `.deleted`; `.notFound` when that user has no credential with this ID (including when it belongs
    ///   to another user); `.lastCredential`, changing nothing.
    public func deleteCredentialUnlessLast(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion {
        let credentials = try credentials(userID: userID)
        guard credentials.contains(where: { $0.id == id }) else { return .notFound }
        if credentials.count == 1, try appleIdentities(userID: userID).isEmpty, try federatedIdentities(userID: userID).isEmpty {
            return .lastCredential
        }
        return try deleteCredential(id: id, userID: userID) ? .deleted : .notFound
    }
}
