/// Secrets that every node of a deployment must hold alike, such as the key that encrypts Apple refresh tokens
/// (a token stored by one node is revoked by another) and the secret behind the decoy credentials of unknown
/// usernames (two nodes must not give different decoys).
public protocol SharedSecretStore: Sendable {
    /// Returns the secret named `name`, storing `proposed` as that secret first when there is none. Of any number
    /// of concurrent callers on any nodes, all get the same bytes.
    func sharedSecret(named name: String, proposing proposed: [UInt8]) throws(StorageError) -> [UInt8]
}
