/// Accounts. Usernames are compared exactly (byte for byte); normalising them is the caller's job.
public protocol UserStore: Sendable {
    /// Creates a user together with its first credential, atomically: afterwards either both exist or neither does.
    ///
    /// - Throws: `storage.usernameTaken` when another user has `user.name`;
    ///   `storage.credentialExists` when a credential with `firstCredential.id` exists;
    ///   `storage.notFound` when `firstCredential.userID` is not `user.id`;
    ///   `storage.duplicateKey` when a user with `user.id` exists; `storage.unavailable` on backend failure.
    func createUser(_ user: UserRecord, firstCredential: CredentialRecord) throws(StorageError)

    /// Returns the user with this handle, or nil when there is none.
    func user(id: [UInt8]) throws(StorageError) -> UserRecord?

    /// Returns the user with exactly this username, or nil when there is none.
    func user(name: String) throws(StorageError) -> UserRecord?

    /// Deletes the user and every row of the account: its credentials, its sessions, its Apple identities and the
    /// challenges issued for it (those whose `userID` is this user). Queued Apple revocations are kept. Idempotent: deleting a missing user succeeds.
    func deleteUser(id: [UInt8]) throws(StorageError)
}
