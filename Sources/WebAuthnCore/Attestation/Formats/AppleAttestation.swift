import CryptoCore

/// The Apple Anonymous attestation statement format (WebAuthn §8.8).
enum AppleAttestation {
    static let nonceExtensionOID = "1.2.840.113635.100.8.2"

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.8: verify that attStmt is valid CBOR {x5c}; iOS 14–16 also send an informational alg, which is ignored.
        try input.requireOnly(["x5c", "alg"], format: .apple)
        guard let certificates = try input.certificates() else {
            throw WebAuthnError(.malformedStatement, "apple attestation requires x5c")
        }
        let credentialCertificate = certificates[0]
        // §8.8 step 2–3: nonceToHash = authenticatorData || clientDataHash; nonce = SHA-256(nonceToHash).
        let nonce = DigestAlgorithm.sha256.hash(input.signedData)
        // §8.8 step 4: verify that nonce equals the value of the extension with OID 1.2.840.113635.100.8.2 in credCert.
        guard let (_, value) = credentialCertificate.extensionValue(nonceExtensionOID) else {
            throw WebAuthnError(.appleNonceMissing, "credential certificate has no Apple nonce extension")
        }
        guard try extractNonce(value) == nonce else {
            throw WebAuthnError(.appleNonceMismatch, "Apple nonce extension does not match SHA-256(authData || clientDataHash)")
        }
        // §8.8 step 5: verify that the credential public key equals the Subject Public Key of credCert.
        try input.requireCredentialKey(in: credentialCertificate)
        // §8.8 step 6: return attestation type Anonymization CA and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .apple, type: .anonCA, trustPath: certificates, trustEvaluation: evaluation)
    }

    /// The extension holds `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }`.
    private static func extractNonce(_ value: [UInt8]) throws(WebAuthnError) -> [UInt8] {
        do {
            let sequence = try ASN1Element.single(value)
            guard sequence.tagClass == .universal, sequence.tag == 16, let tagged = try sequence.children().first,
                tagged.tagClass == .contextSpecific, tagged.tag == 1,
                let octets = try tagged.children().first, octets.tagClass == .universal, octets.tag == 4
            else { throw WebAuthnError(.appleNonceMismatch, "Apple nonce extension has an unexpected structure") }
            return octets.contents
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.appleNonceMismatch, "Apple nonce extension is not valid DER")
        }
    }
}
