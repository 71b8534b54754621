/// The ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable {
    /// Creating a credential (navigator.credentials.create).
    case registration
    /// Asserting a credential (navigator.credentials.get).
    case authentication
    /// A nonce for Apple anonymous attestation.
    case appleNonce
}
