/// The outcome of deleting a credential.
public enum CredentialDeletion: Sendable, Equatable {
    /// The credential was deleted.
    case deleted
    /// The user has no credential with that ID; nothing changed.
    case notFound
    /// The credential is the user's only one (and no Apple identity is linked); it was kept, so the account stays reachable.
    case lastCredential
}
