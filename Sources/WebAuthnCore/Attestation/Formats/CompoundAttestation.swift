import CBOR

/// The `compound` attestation statement format (WebAuthn L3 §8.9): several attestation statements about the same
/// credential, each verified with its own format's procedure.
///
/// §8.9 leaves to RP policy how many contained statements must verify; passkeyd takes the strictest reading: every
/// one must, and the first failure rejects the registration with that statement's own error.
///
/// The result reports format `compound` with the attestation type, trust path and trust evaluation of the first
/// statement: every statement verified, so each is a correct answer and the first is the deterministic one; reporting
/// one keeps `AttestationResult` a single trust path that policy code can inspect.
enum CompoundAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.9: attStmt: [2* nonCompoundAttStmt]; check that it is valid CBOR of that syntax.
        guard let entries = input.statement.arrayValue else {
            throw WebAuthnError(.compoundMalformed, "compound attStmt is not an array")
        }
        // §8.9: the array holds at least two statements ([2* nonCompoundAttStmt]).
        guard entries.count >= 2 else {
            throw WebAuthnError(.compoundTooFewStatements, "compound attStmt holds fewer than two statements")
        }
        var results: [AttestationResult] = []
        for entry in entries {
            guard let members = entry.mapValue, members.count == 2, let format = entry["fmt"]?.textValue, let statement = entry["attStmt"] else {
                throw WebAuthnError(.compoundMalformed, "a compound statement is not a {fmt, attStmt} map")
            }
            // §8.9: nonCompoundAttStmt = { $$attStmtType } .within { fmt: text .ne "compound", * any => any }.
            guard format != AttestationFormat.compound.rawValue else {
                throw WebAuthnError(.compoundNested, "a compound statement contains another compound statement")
            }
            guard statement.mapValue != nil else {
                throw WebAuthnError(.compoundMalformed, "a contained attStmt is not a map")
            }
            // §8.9: verify each contained statement with the verification procedure of its own format.
            let memberInput = AttestationInput(
                statement: statement,
                authenticatorData: input.authenticatorData,
                credential: input.credential,
                clientDataHash: input.clientDataHash,
                trustAnchors: input.trustAnchors,
                metadata: input.metadata,
                time: input.time,
                safetyNet: input.safetyNet
            )
            results.append(try AttestationVerifier.verify(format: format, input: memberInput))
        }
        // §8.9: on success, return the attestation type and trust path (here those of the first statement).
        let first = results[0]
        return AttestationResult(format: .compound, type: first.type, trustPath: first.trustPath, trustEvaluation: first.trustEvaluation)
    }
}
