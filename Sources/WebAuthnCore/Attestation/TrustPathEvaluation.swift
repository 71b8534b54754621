/// What was concluded about an attestation's certificate path.
public enum TrustPathEvaluation: Sendable, Equatable {
    /// No certificates (none or self attestation): nothing to evaluate.
    case notApplicable
    /// No trust anchors were configured for the ceremony: the statement was verified, the path was not.
    case notEvaluated
    /// The path ends at a configured anchor; the SHA-256 fingerprint of that anchor.
    case trusted(anchorFingerprint: String)
}
