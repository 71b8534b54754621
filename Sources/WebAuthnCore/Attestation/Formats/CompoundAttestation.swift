import CBOR

/// The `compound` attestation statement format (WebAuthn L3 §8.9): several attestation statements about the same
/// credential, each verified with its own format's procedure.
///
/// The result reports format `compound` with the attestation type, trust path and trust evaluation of the first
/// statement: the statements are independent and equally verified, the authenticator lists them in its order of
/// preference, and reporting one keeps `AttestationResult` a single path that policy code can inspect.
enum CompoundAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.9: attStmt is an array of {fmt, attStmt} maps; check that it is valid CBOR of that syntax.
        guard let entries = input.statement.arrayValue else {
            throw WebAuthnError("attestation.compoundMalformed", "compound attStmt is not an array")
        }
        // §8.9: the array MUST contain at least two attestation statements.
        guard entries.count >= 2 else {
            throw WebAuthnError("attestation.compoundTooFewStatements", "compound attStmt holds fewer than two statements")
        }
        var results: [AttestationResult] = []
        for entry in entries {
            guard let members = entry.mapValue, members.count == 2, let format = entry["fmt"]?.textValue, let statement = entry["attStmt"] else {
                throw WebAuthnError("attestation.compoundMalformed", "a compound statement is not a {fmt, attStmt} map")
            }
            // §8.9: the fmt of a contained statement MUST NOT be "compound".
            guard format != AttestationFormat.compound.rawValue else {
                throw WebAuthnError("attestation.compoundNested", "a compound statement contains another compound statement")
            }
            guard statement.mapValue != nil else {
                throw WebAuthnError("attestation.compoundMalformed", "a contained attStmt is not a map")
            }
            // §8.9: verify each contained statement using the verification procedure of its format.
            let memberInput = AttestationInput(
                statement: statement, authenticatorData: input.authenticatorData, credential: input.credential,
                clientDataHash: input.clientDataHash, trustAnchors: input.trustAnchors, time: input.time, safetyNet: input.safetyNet)
            results.append(try AttestationVerifier.verify(format: format, input: memberInput))
        }
        // §8.9: on success, return implementation-specific values representing the attestation types and trust paths.
        let first = results[0]
        return AttestationResult(format: .compound, type: first.type, trustPath: first.trustPath, trustEvaluation: first.trustEvaluation)
    }
}
