extension AttestationPolicy {
    /// Applies the policy to a verified statement of the authenticator with `aaguid` (lowercase canonical text).
    func assess(_ attestation: AttestationResult, aaguid: String) throws(WebAuthnError) {
        guard self != .none else { return }
        if case .allowList(let allowed) = self, !allowed.contains(where: { $0.lowercased() == aaguid }) {
            throw WebAuthnError(.aaguidNotAllowed, "the authenticator's AAGUID \(aaguid) is not on the relying party's allow list")
        }
        // §7.1 step 24: "If no attestation was provided, verify that None attestation is acceptable under Relying Party policy."
        guard attestation.type != .none else {
            throw WebAuthnError(.notTrusted, "the relying party requires a verified attestation and the authenticator sent none")
        }
        // §7.1 step 24: "If self attestation was used, verify that self attestation is acceptable under Relying Party policy."
        guard attestation.type != .self else {
            throw WebAuthnError(
                .notTrusted,
                "the relying party requires a verified attestation and the authenticator sent self attestation"
            )
        }
        // §7.1 step 24: "Otherwise, use the X.509 certificates returned as the attestation trust path from the verification
        // procedure to verify that the attestation public key either correctly chains up to an acceptable root certificate,
        // or is itself an acceptable certificate."
        guard case .trusted = attestation.trustEvaluation else {
            throw WebAuthnError(
                .notTrusted,
                "the attestation certificate path was not evaluated: no trust anchor or metadata root is known for this authenticator"
            )
        }
    }
}
