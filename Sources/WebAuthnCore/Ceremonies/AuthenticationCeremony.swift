import CryptoCore

/// Verifies an authentication assertion (WebAuthn L3 §7.2 "Verifying an Authentication Assertion").
public struct AuthenticationCeremony: Sendable {
    public let relyingParty: RelyingParty

    public init(relyingParty: RelyingParty) {
        self.relyingParty = relyingParty
    }

    public func verify(
        _ credential: AuthenticationResponseJSON,
        expecting expectations: AuthenticationExpectations
    ) throws(WebAuthnError) -> AuthenticationResult {
        try verify(credential, clientData: nil, expecting: expectations)
    }

    /// `verify(_:expecting:)` with the response's client data decoded and parsed by the caller already, used when its
    /// `text` is the response's `clientDataJSON` (read afresh otherwise).
    public func verify(
        _ credential: AuthenticationResponseJSON,
        clientData decoded: DecodedClientData?,
        expecting expectations: AuthenticationExpectations
    ) throws(WebAuthnError) -> AuthenticationResult {
        // §7.2 step 3: the response must be an AuthenticatorAssertionResponse of a public-key credential, its id the base64url of rawId.
        let rawID = try ResponseField.credentialID(type: credential.type, id: credential.id, rawId: credential.rawId)
        // §7.2 step 5: if allowCredentials is not empty, verify that credential.id identifies one of the credentials listed.
        if !expectations.allowedCredentialIDs.isEmpty, !expectations.allowedCredentialIDs.contains(rawID) {
            throw WebAuthnError(.credentialNotAllowed, "the credential was not in allowCredentials")
        }
        // §7.2 step 6: the credential record is the one whose id equals credential.rawId.
        guard rawID == expectations.credential.id else {
            throw WebAuthnError(.credentialUnknown, "the credential record does not match rawId")
        }
        var userHandle: [UInt8]?
        if let text = credential.response.userHandle, !text.isEmpty {
            userHandle = try ResponseField.decode(text, member: "userHandle")
        }
        if let identified = expectations.identifiedUserHandle {
            // §7.2 step 6 (user identified before the ceremony): the account must own the credential, and a present userHandle must equal its user handle.
            guard ConstantTime.equals(identified, expectations.credential.userHandle) else {
                throw WebAuthnError(.wrongUser, "the credential does not belong to the identified user")
            }
            if let userHandle, !ConstantTime.equals(userHandle, identified) {
                throw WebAuthnError(.userHandleMismatch, "userHandle differs from the identified user's handle")
            }
        } else {
            // §7.2 step 6 (user not identified): verify that response.userHandle is present and owns the credential.
            guard let userHandle else {
                throw WebAuthnError(.missingUserHandle, "a discoverable sign-in needs the userHandle")
            }
            guard ConstantTime.equals(userHandle, expectations.credential.userHandle) else {
                throw WebAuthnError(.userHandleMismatch, "userHandle is not the handle of the credential's owner")
            }
        }
        // §7.2 step 7: let cData, authData and sig be the response's clientDataJSON, authenticatorData and signature.
        let read = decoded.flatMap { $0.isRead(from: credential.response.clientDataJSON) ? $0 : nil }
        let clientDataBytes: [UInt8]
        if let read {
            clientDataBytes = read.bytes
        } else {
            clientDataBytes = try ResponseField.decode(credential.response.clientDataJSON, member: "clientDataJSON")
        }
        let authenticatorDataBytes = try ResponseField.decode(credential.response.authenticatorData, member: "authenticatorData")
        let signature = try ResponseField.decode(credential.response.signature, member: "signature")

        // §7.2 steps 8–14: client data (UTF-8, JSON, type, challenge, origin, crossOrigin, topOrigin).
        let clientData: CollectedClientData
        if let read {
            clientData = read.parsed
        } else {
            clientData = try CollectedClientData(bytes: clientDataBytes)
        }
        _ = try ClientDataVerifier.verify(
            clientData,
            types: expectations.clientDataTypes,
            challenge: expectations.challenge,
            relyingParty: relyingParty
        )

        let authenticatorData = try AuthenticatorData(bytes: authenticatorDataBytes)
        guard authenticatorData.attestedCredentialData == nil else {
            throw WebAuthnError(.unexpectedCredential, "assertion authenticator data must not carry attested credential data")
        }
        // §7.2 steps 15–18: rpIdHash, UP, UV when required, BS only with BE.
        try AuthenticatorDataVerifier.verify(
            authenticatorData,
            requiresUserPresence: true,
            userVerification: expectations.userVerification,
            relyingParty: relyingParty
        )
        // §7.2 step 19: compare BE with the stored value; passkeyd's policy records a change as a risk signal instead of refusing.
        let backupEligibilityChanged = expectations.credential.backupEligible.map { $0 != authenticatorData.flags.contains(.backupEligible) } ?? false

        // §7.2 step 21: let hash be the result of computing a hash over the cData using SHA-256.
        let clientDataHash = DigestAlgorithm.sha256.hash(clientDataBytes)
        // §7.2 step 22: verify that sig is a valid signature over authData || hash using the stored public key.
        guard expectations.credential.publicKey.verify(signature: signature, over: authenticatorDataBytes, clientDataHash) else {
            throw WebAuthnError(.assertionInvalidSignature, "the assertion signature does not verify with the stored public key")
        }
        // §7.2 step 23: if either counter is non-zero, the new one must be greater; otherwise the authenticator may be cloned.
        let stored = expectations.credential.signCount
        if authenticatorData.signCount != 0 || stored != 0, authenticatorData.signCount <= stored {
            throw WebAuthnError(
                .signCountNotIncreased,
                "signature counter \(authenticatorData.signCount) did not increase past the stored \(stored): the authenticator may be cloned"
            )
        }
        return AuthenticationResult(
            credentialID: rawID,
            userHandle: expectations.credential.userHandle,
            signCount: authenticatorData.signCount,
            flags: authenticatorData.flags,
            backupEligibilityChanged: backupEligibilityChanged
        )
    }
}
