import CryptoCore

/// The outcome of verifying an attestation statement (WebAuthn §7.1 steps 22–24).
public struct AttestationResult: Sendable {
    public let format: AttestationFormat
    public let type: AttestationType
    /// The attestation certificates as sent (leaf first); empty for none and self attestation.
    public let trustPath: [X509Certificate]
    public let trustEvaluation: TrustPathEvaluation

    public init(format: AttestationFormat, type: AttestationType, trustPath: [X509Certificate], trustEvaluation: TrustPathEvaluation) {
        self.format = format
        self.type = type
        self.trustPath = trustPath
        self.trustEvaluation = trustEvaluation
    }
}
