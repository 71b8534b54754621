/// What a driver's conditional counter update found, for `CeremonyStore.completeAuthentication`.
public enum CounterUpdate: Sendable {
    case recorded
    case credentialMissing
    case counterNotIncreased
    case challengeSpent
    /// The credential's user is disabled: nothing was recorded.
    case userDisabled
    /// The stored credential is not the one the sign-in was verified against (`SignInExpectation`).
    case credentialChanged

    /// Throws the contract's error unless the assertion was recorded.
    public func check() throws(StorageError) {
        switch self {
        case .recorded: return
        case .credentialMissing: throw StorageError(.notFound, "the session's user has no credential with this ID")
        case .counterNotIncreased: throw StorageError(.signCountNotIncreased, "the signature counter did not increase past the stored one")
        case .challengeSpent: throw StorageError(.challengeSpent, "the challenge was used before")
        case .userDisabled: throw StorageError(.userDisabled, "the user is disabled")
        case .credentialChanged: throw StorageError(.credentialChanged, "the stored credential is not the one the sign-in was verified against")
        }
    }
}
