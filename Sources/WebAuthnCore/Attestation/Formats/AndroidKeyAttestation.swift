import CryptoCore

/// The `android-key` attestation statement format (WebAuthn §8.4).
enum AndroidKeyAttestation {
    /// KM_ORIGIN_GENERATED: the key was generated in Keymaster.
    static let generatedOrigin: Int64 = 0
    /// KM_PURPOSE_SIGN.
    static let signPurpose: Int64 = 2
    /// §8.4 lets the RP judge origin and purpose on teeEnforced alone (keys from a TEE only) or on the union with
    /// softwareEnforced. passkeyd takes the union, as most RPs do: every android-key vector of the corpus agrees
    /// either way, and whether the key lives in a TEE is a property of the device that the trust path to Google's
    /// roots, not this flag, establishes.
    static let acceptsSoftwareEnforcedAuthorizations = true

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.4: attStmt is {alg, sig, x5c}; check that it is valid CBOR of that syntax.
        try input.requireOnly(["alg", "sig", "x5c"], format: .androidKey)
        let algorithm = try input.algorithm()
        let signature = try input.signature()
        guard let certificates = try input.certificates() else {
            throw WebAuthnError(.malformedStatement, "android-key attestation requires x5c")
        }
        let credentialCertificate = certificates[0]
        // §8.4: verify that the public key in the first certificate in x5c matches the credentialPublicKey in the
        // attestedCredentialData in authenticatorData.
        let certificateKey = try input.requireCredentialKey(in: credentialCertificate)
        let description = try AndroidKeyDescription(certificate: credentialCertificate)
        // §8.4: verify that the attestationChallenge field in the attestation certificate extension data is
        // identical to clientDataHash.
        guard description.attestationChallenge == input.clientDataHash else {
            throw WebAuthnError(.androidKeyChallengeMismatch, "attestationChallenge differs from clientDataHash")
        }
        try checkAuthorizations(description)
        // §8.4: verify that sig is a valid signature over the concatenation of authenticatorData and clientDataHash
        // using the public key in the first certificate in x5c with the algorithm specified in alg.
        guard certificateKey.verify(signature: signature, message: input.signedData, algorithm: algorithm.signatureAlgorithm(for: certificateKey))
        else {
            throw WebAuthnError(.attestationInvalidSignature, "android-key attestation signature does not verify with the credential certificate")
        }
        // §8.4: return attestation type Basic and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .androidKey, type: .basic, trustPath: certificates, trustEvaluation: evaluation)
    }

    /// The authorization-list checks of §8.4. A field that is present must hold the required value; a field absent
    /// from every list consulted is not a violation: Keymaster always writes origin and purpose, and the W3C test
    /// vector (which the spec says RPs can validate) carries empty authorization lists.
    static func checkAuthorizations(
        _ description: AndroidKeyDescription,
        acceptingSoftwareEnforced: Bool = acceptsSoftwareEnforcedAuthorizations
    ) throws(WebAuthnError) {
        // §8.4: the AuthorizationList.allApplications field is not present on either authorization list
        // (softwareEnforced nor teeEnforced), since PublicKeyCredential MUST be scoped to the RP ID.
        guard !description.softwareEnforced.hasAllApplications, !description.teeEnforced.hasAllApplications else {
            throw WebAuthnError(.androidKeyAllApplications, "the key is usable by all applications (allApplications present)")
        }
        let lists = acceptingSoftwareEnforced ? [description.teeEnforced, description.softwareEnforced] : [description.teeEnforced]
        // §8.4: the value in the AuthorizationList.origin field is equal to KM_ORIGIN_GENERATED.
        let origins = lists.compactMap(\.origin)
        guard origins.allSatisfy({ $0 == generatedOrigin }) else {
            throw WebAuthnError(.androidKeyOriginNotGenerated, "the key's origin is not KM_ORIGIN_GENERATED")
        }
        // §8.4: the AuthorizationList.purpose field contains KM_PURPOSE_SIGN.
        let purposes = lists.compactMap(\.purposes)
        guard purposes.isEmpty || purposes.contains(where: { $0.contains(signPurpose) }) else {
            throw WebAuthnError(.androidKeyPurposeNotSign, "the key's purpose does not include KM_PURPOSE_SIGN")
        }
    }
}
