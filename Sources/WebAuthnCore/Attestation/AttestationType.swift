/// Attestation types (WebAuthn §6.5.3).
public enum AttestationType: String, Sendable, Codable {
    /// No attestation statement.
    case none
    /// Signed by the credential key itself.
    case `self`
    /// Signed by a batch key certified by the vendor.
    case basic
    /// Signed by a per-credential or per-device key certified by an attestation CA.
    case attCA
    /// Anonymization CA (Apple).
    case anonCA
}
