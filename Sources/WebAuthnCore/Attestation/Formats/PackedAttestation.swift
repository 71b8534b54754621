import CryptoCore

/// The `packed` attestation statement format (WebAuthn §8.2).
enum PackedAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.2: attStmt is {alg, sig, x5c?}; check that it is valid CBOR of that syntax.
        try input.requireOnly(["alg", "sig", "x5c"], format: .packed)
        let algorithm = try input.algorithm()
        let signature = try input.signature()
        guard let certificates = try input.certificates() else {
            // §8.2 (self attestation): validate that alg matches the algorithm of the credentialPublicKey in authenticatorData.
            guard algorithm == input.credential.credentialPublicKey.algorithm else {
                throw WebAuthnError(.attestationAlgorithmMismatch, "self attestation alg differs from the credential key's alg")
            }
            // §8.2 (self attestation): verify that sig is a valid signature over authenticatorData || clientDataHash using the credential public key with alg.
            guard input.credential.credentialPublicKey.verify(signature: signature, message: input.signedData) else {
                throw WebAuthnError(.attestationInvalidSignature, "packed self attestation signature does not verify")
            }
            return AttestationResult(format: .packed, type: .self, trustPath: [], trustEvaluation: .notApplicable)
        }
        let leaf = certificates[0]
        let leafKey = try input.publicKey(of: leaf, role: "attestation certificate")
        // §8.2 (x5c): verify that sig is a valid signature over authenticatorData || clientDataHash using the attestation public key in attestnCert with alg.
        guard leafKey.verify(signature: signature, message: input.signedData, algorithm: algorithm.signatureAlgorithm(for: leafKey)) else {
            throw WebAuthnError(.attestationInvalidSignature, "packed attestation signature does not verify with the attestation certificate")
        }
        // §8.2 (x5c): verify that attestnCert meets the requirements in §8.2.1.
        try PackedCertificateRequirements.check(leaf)
        // §8.2 (x5c): if attestnCert contains id-fido-gen-ce-aaguid, verify that its value matches the aaguid in authenticatorData.
        try PackedCertificateRequirements.checkAAGUIDExtension(leaf, aaguid: input.credential.aaguid)
        // §8.2 (x5c): return attestation type Basic, AttCA or uncertainty, and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(
            format: .packed,
            type: certificates.count > 1 ? .attCA : .basic,
            trustPath: certificates,
            trustEvaluation: evaluation
        )
    }
}
