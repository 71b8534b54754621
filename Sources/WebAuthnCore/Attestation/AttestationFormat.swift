/// Attestation statement formats (WebAuthn §8, IANA "WebAuthn Attestation Statement Format Identifiers").
/// A closed set: `fmt` is matched case-sensitively and anything else fails.
public enum AttestationFormat: String, Sendable, CaseIterable {
    case none
    case packed
    case fidoU2F = "fido-u2f"
    case apple
    case tpm
    case androidKey = "android-key"
    case androidSafetyNet = "android-safetynet"
    case compound
}
