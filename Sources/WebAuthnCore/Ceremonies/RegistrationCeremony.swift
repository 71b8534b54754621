import CryptoCore

/// Verifies a registration response (WebAuthn L3 §7.1 "Registering a New Credential"). Pure: the stored
/// expectations, the relying party's settings and its injected clock are the only inputs besides the response.
public struct RegistrationCeremony: Sendable {
    public let relyingParty: RelyingParty

    public init(relyingParty: RelyingParty) {
        self.relyingParty = relyingParty
    }

    public func verify(
        _ credential: RegistrationResponseJSON,
        expecting expectations: RegistrationExpectations
    ) throws(WebAuthnError) -> RegistrationResult {
        // §7.1 step 3: the response must be an AuthenticatorAttestationResponse of a public-key credential, its id the base64url of rawId.
        let rawID = try ResponseField.credentialID(type: credential.type, id: credential.id, rawId: credential.rawId)
        let clientDataBytes = try ResponseField.decode(credential.response.clientDataJSON, member: "clientDataJSON")
        let attestationBytes = try ResponseField.decode(credential.response.attestationObject, member: "attestationObject")

        // §7.1 steps 5–11: client data (UTF-8, JSON, type, challenge, origin, crossOrigin, topOrigin).
        _ = try ClientDataVerifier.verify(
            clientDataBytes,
            types: expectations.clientDataTypes,
            challenge: expectations.challenge,
            relyingParty: relyingParty
        )

        // §7.1 step 12: let hash be the result of computing a hash over response.clientDataJSON using SHA-256.
        let clientDataHash = DigestAlgorithm.sha256.hash(clientDataBytes)

        // §7.1 step 13: perform CBOR decoding on attestationObject to obtain fmt, authData and attStmt.
        let attestationObject = try AttestationObject(bytes: attestationBytes)
        let authenticatorData = attestationObject.authenticatorData
        guard let attested = authenticatorData.attestedCredentialData else {
            throw WebAuthnError(
                .missingCredential,
                "registration authenticator data has no attested credential data (AT flag clear)"
            )
        }

        // §7.1 steps 14–17: rpIdHash, UP (unless a conditional create), UV when required, BS only with BE.
        try AuthenticatorDataVerifier.verify(
            authenticatorData,
            requiresUserPresence: expectations.requiresUserPresence,
            userVerification: expectations.userVerification,
            relyingParty: relyingParty
        )
        // §7.1 step 20: verify that the credential public key's alg is one of the pubKeyCredParams that were offered.
        guard expectations.allowedAlgorithms.contains(attested.credentialPublicKey.algorithm) else {
            throw WebAuthnError(
                .algorithmNotAllowed,
                "the credential's algorithm \(attested.credentialPublicKey.algorithm.rawValue) was not offered in this ceremony"
            )
        }
        // §7.1 step 25: verify that the credentialId is ≤ 1023 bytes.
        guard attested.credentialID.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw WebAuthnError(.credentialIDTooLong, "credential ID is longer than 1023 bytes")
        }
        // §5.1.3 (create): the credential's [[identifier]] is the credentialId of the attested credential data, so rawId must equal it.
        guard rawID == attested.credentialID else {
            throw WebAuthnError(.rawIDMismatch, "rawId differs from the credential ID in the attested credential data")
        }

        // §7.1 steps 21–23: determine the format, verify attStmt, and evaluate the trust path against the ceremony's anchors and metadata roots.
        let time = relyingParty.time.now
        // FIDO MDS v3.0: a BLOB past its nextUpdate (and the relying party's grace) is not used, so a stale one fails the ceremony.
        try expectations.metadata?.requireFresh(at: time)
        let input = AttestationInput(
            statement: attestationObject.statement,
            authenticatorData: authenticatorData,
            credential: attested,
            clientDataHash: clientDataHash,
            trustAnchors: expectations.trustAnchors,
            metadata: expectations.metadata,
            time: time,
            safetyNet: expectations.safetyNet
        )
        let verified = try AttestationVerifier.verify(format: attestationObject.format, input: input)
        let entry = expectations.metadata?.entry(aaguid: attested.aaguid, certificates: verified.trustPath)
        // FIDO MDS v3.0, AuthenticatorStatus: REVOKED, USER_VERIFICATION_BYPASS, ATTESTATION_KEY_COMPROMISE and the
        // USER_KEY_*_COMPROMISE statuses mean the authenticator "should not be trusted"; refused by the metadata policy.
        if let metadata = expectations.metadata, let status = entry?.latestStatus, metadata.policy.refusedStatuses.contains(status) {
            throw WebAuthnError(.authenticatorRevoked, "the FIDO metadata's latest status for this authenticator is \(status.rawValue)")
        }
        // §7.1 step 24: assess the attestation trustworthiness under the relying party's policy.
        let aaguidText = AttestedCredentialData.uuidString(attested.aaguid)
        try expectations.attestationPolicy.assess(verified, aaguid: aaguidText)
        let description = entry?.statement?.description.flatMap { $0.isEmpty ? nil : $0 }
        let attestation = AttestationResult(
            format: verified.format,
            type: verified.type,
            trustPath: verified.trustPath,
            trustEvaluation: verified.trustEvaluation,
            authenticatorName: description ?? expectations.authenticatorNames.name(for: attested.aaguid)
        )

        // §7.1 step 26 (credentialId not yet registered) is the server's, which owns the store.
        return RegistrationResult(
            credentialID: attested.credentialID,
            publicKey: attested.credentialPublicKey,
            signCount: authenticatorData.signCount,
            aaguid: attested.aaguid,
            flags: authenticatorData.flags,
            transports: credential.response.transports ?? [],
            attestation: attestation,
            authenticatorAttachment: credential.authenticatorAttachment,
            residentKey: credential.clientExtensionResults?.credProps?.rk
        )
    }
}
