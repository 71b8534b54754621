import CryptoCore

/// The `fido-u2f` attestation statement format (WebAuthn §8.6).
enum FIDOU2FAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.6: verify that attStmt is valid CBOR {x5c, sig}.
        try input.requireOnly(["sig", "x5c"], format: .fidoU2F)
        let signature = try input.signature()
        // §8.6 step 2: check that x5c has exactly one element; let attCert be that element. (The few first-generation
        // Yubico certificates with a known signature encoding defect are repaired first, by fingerprint.)
        guard let certificates = try input.certificates(repairingYubicoDefect: true), certificates.count == 1 else {
            throw WebAuthnError(.malformedStatement, "fido-u2f x5c must hold exactly one certificate")
        }
        let certificateKey = try input.publicKey(of: certificates[0], role: "attestation certificate")
        // §8.6 step 2: if certificate public key is not an EC public key over the P-256 curve, terminate with an error.
        guard certificateKey.type == .ec, certificateKey.curve == .p256 else {
            throw WebAuthnError(.invalidCertificate, "fido-u2f attestation certificate key is not EC P-256")
        }
        // §8.6 step 4: convert the COSE_KEY formatted credentialPublicKey to Raw ANSI X9.62 public key format.
        let credentialKey = input.credential.credentialPublicKey
        guard credentialKey.algorithm == .es256, let coordinates = try? credentialKey.publicKey.ecCoordinates() else {
            throw WebAuthnError(.attestationAlgorithmMismatch, "fido-u2f credentials must be ES256 keys")
        }
        let publicKeyU2F = [0x04] + coordinates.x + coordinates.y
        // §8.6 step 5: verificationData = 0x00 || rpIdHash || clientDataHash || credentialId || publicKeyU2F.
        let verificationData = [0x00] + input.authenticatorData.rpIDHash + input.clientDataHash + input.credential.credentialID + publicKeyU2F
        // §8.6 step 6: verify the sig using verificationData and the certificate public key per SEC1 with SHA-256.
        guard certificateKey.verify(signature: signature, message: verificationData, algorithm: .ecdsaSHA256) else {
            throw WebAuthnError(.attestationInvalidSignature, "fido-u2f attestation signature does not verify")
        }
        // §8.6 step 8: return attestation type Basic or AttCA, and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .fidoU2F, type: .basic, trustPath: certificates, trustEvaluation: evaluation)
    }
}
