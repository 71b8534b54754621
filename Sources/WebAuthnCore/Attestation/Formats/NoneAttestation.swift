/// The `none` attestation statement format (WebAuthn §8.7).
enum NoneAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.7 verification procedure: attStmt must be the empty map; return attestation type None.
        guard input.statement.mapValue?.isEmpty == true else {
            throw WebAuthnError(.malformedStatement, "none attestation requires an empty attStmt")
        }
        return AttestationResult(format: .none, type: .none, trustPath: [], trustEvaluation: .notApplicable)
    }
}
