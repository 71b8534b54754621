import CryptoCore

/// The outcome of verifying an attestation statement (WebAuthn §7.1 steps 22–24).
public struct AttestationResult: Sendable {
    public let format: AttestationFormat
    public let type: AttestationType
    /// The attestation certificates as sent (leaf first); empty for none and self attestation.
    public let trustPath: [X509Certificate]
    public let trustEvaluation: TrustPathEvaluation
    /// The authenticator's name, when known: the FIDO metadata statement's description, or the name list's entry
    /// for the AAGUID.
    public let authenticatorName: String?

    public init(
        format: AttestationFormat,
        type: AttestationType,
        trustPath: [X509Certificate],
        trustEvaluation: TrustPathEvaluation,
        authenticatorName: String? = nil
    ) {
        self.format = format
        self.type = type
        self.trustPath = trustPath
        self.trustEvaluation = trustEvaluation
        self.authenticatorName = authenticatorName
    }
}
