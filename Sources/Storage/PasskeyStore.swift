/// Everything the relying-party server stores. Every method is safe to call from any thread at once;
/// each call is atomic on its own. All errors are `StorageError`.
public typealias PasskeyStore = UserStore & CredentialStore & ChallengeStore & SessionStore & CeremonyStore
    & AppleIdentityStore & AppleNonceStore & AppleRevocationQueue
