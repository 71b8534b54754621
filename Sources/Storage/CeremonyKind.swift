/// The ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable {
    /// Creating a credential (navigator.credentials.create).
    case registration
    /// Asserting a credential (navigator.credentials.get).
    case authentication
    /// A Sign in with Apple nonce, stored under the SHA-256 of the raw nonce.
    case appleNonce
}
