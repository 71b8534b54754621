/// Dispatches an attestation statement to its format's verification procedure (WebAuthn §7.1 steps 21–22).
enum AttestationVerifier {
    static func verify(format identifier: String, input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §7.1 step 21: determine the attestation statement format by a USASCII case-sensitive match on fmt.
        guard let format = AttestationFormat(rawValue: identifier) else {
            throw WebAuthnError(.unsupportedFormat, "attestation format is not one passkeyd knows")
        }
        // §7.1 step 22: verify that attStmt is a correct attestation statement using the format's verification procedure.
        switch format {
        case .none: return try NoneAttestation.verify(input)
        case .packed: return try PackedAttestation.verify(input)
        case .fidoU2F: return try FIDOU2FAttestation.verify(input)
        case .apple: return try AppleAttestation.verify(input)
        case .tpm: return try TPMAttestation.verify(input)
        case .androidKey: return try AndroidKeyAttestation.verify(input)
        case .androidSafetyNet: return try AndroidSafetyNetAttestation.verify(input)
        case .compound: return try CompoundAttestation.verify(input)
        }
    }
}
