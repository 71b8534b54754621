/// Which attestations a relying party accepts at registration (WebAuthn §7.1 step 24: "Assess the attestation
/// trustworthiness using the outputs of the verification procedure").
public enum AttestationPolicy: Sendable, Equatable {
    /// Accept any attestation whose statement verifies, none and self included, and record what was seen. A
    /// certificate path is still evaluated against the configured anchors and metadata roots when there are any.
    case none
    /// The statement's certificate path must end at a known root: the configured trust anchors, or the FIDO metadata
    /// roots for this authenticator. None and self attestation are refused.
    case verified
    /// As `verified`, and the authenticator's AAGUID (lowercase canonical text) must be one of these.
    case allowList(Set<String>)

    /// The `attestation` conveyance preference to request in creation options.
    public var conveyancePreference: String {
        self == .none ? "none" : "direct"
    }
}
