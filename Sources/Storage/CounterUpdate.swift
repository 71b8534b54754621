/// What a driver's conditional counter update found, for `CeremonyStore.completeAuthentication`.
public enum CounterUpdate: Sendable {
    case recorded
    case counterNotIncreased
    case challengeSpent
    /// The credential's user is disabled: nothing was recorded.
    case userDisabled
    /// No credential of the session's user with this ID holds what the sign-in was verified against
    /// (`SignInExpectation`): nothing was recorded.
    case credentialChanged

    /// Throws the contract's error unless the assertion was recorded.
    public func check() throws(StorageError) {
        switch self {
        case .recorded: return
        case .counterNotIncreased: throw StorageError(.signCountNotIncreased, "the signature counter did not increase past the stored one")
        case .challengeSpent: throw StorageError(.challengeSpent, "the challenge was used before")
        case .userDisabled: throw StorageError(.userDisabled, "the user is disabled")
        case .credentialChanged: throw StorageError(.credentialChanged, "the stored credential is not the one the sign-in was verified against")
        }
    }
}
