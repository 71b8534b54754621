/// What a sign-in was verified against, a record the node kept from an earlier sign-in or one it read for this one
/// (`CeremonyStore.completeAuthentication`): the credential's public key, the backup-eligibility flag the assertion's
/// was compared with, and the user handle. The final write stores the sign-in only when the stored credential still
/// has them, so that a credential deleted and registered again with the same ID but another key, before the write,
/// can never be signed in with by an assertion verified against the old one.
public struct SignInExpectation: Sendable, Equatable {
    /// The COSE public key the signature was verified with.
    public var publicKey: [UInt8]
    /// The stored backup-eligibility flag the assertion's was compared with.
    public var backupEligible: Bool
    /// The user handle the assertion's was compared with.
    public var userHandle: [UInt8]

    /// What a verification against `credential` assumed.
    public init(_ credential: CredentialRecord) {
        publicKey = credential.publicKey
        backupEligible = credential.backupEligible
        userHandle = credential.userHandle
    }

    /// Whether `credential` is one the verification could have read.
    public func holds(for credential: CredentialRecord) -> Bool {
        credential.publicKey == publicKey && credential.backupEligible == backupEligible && credential.userHandle == userHandle
    }
}
