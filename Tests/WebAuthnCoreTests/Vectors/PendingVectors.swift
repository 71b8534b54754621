import WebAuthnCore

/// Vector cases that cannot agree, by id, each with its reason and the error passkeyd gives instead.
/// The test still runs them and checks that they fail closed with exactly that error, or, for a case whose
/// rejection is only a peer's policy that the spec does not require (`expectedError` nil), that passkeyd accepts it.
enum PendingVectors {
    struct Reason {
        let expectedError: WebAuthnError.Code?
        let why: String
    }

    private static let mlDSA = Reason(
        expectedError: .unsupportedKeyType,
        why: "ML-DSA (COSE kty AKP, FIPS 204) is not available in OpenSSL 3.0, the version Debian 12 ships"
    )

    /// WebAuthn L3 §5.1.3 (Create a New Credential): the credential's [[identifier]] is the credentialId of the
    /// attested credential data, and `rawId` returns [[identifier]] (§5.1); so a rawId that differs from the attested
    /// credential ID (or is not base64url at all) was not produced by a conforming client. These fixtures were
    /// assembled from peer tests that ran only an attestation-format handler, with a rawId from elsewhere.
    private static let rawIDNotAttested = Reason(
        expectedError: .rawIDMismatch,
        why: "rawId is not the attested credential ID (§5.1.3); the peer test never compared them"
    )
    private static let rawIDNotBase64URL = Reason(
        expectedError: .responseInvalidEncoding,
        why: "rawId is a placeholder ('aaa'/'bbb') that is not base64url of any byte string (§5.1: rawId is [[identifier]], id its base64url)"
    )

    /// WebAuthn §8.3: "alg: A COSEAlgorithmIdentifier containing the identifier of the algorithm used to generate the
    /// attestation signature", and the procedure verifies sig over certInfo "with the algorithm specified in alg";
    /// no algorithm is excluded, and the corpus's RS1 TPM statements from SimpleWebAuthn (tpm-rs256-sha1,
    /// tpm-rs256-sha1-fido2-net-lib) must be accepted. webauthn-rs refuses SHA-1 TPM attestation as its own policy.
    private static let sha1TPMPolicy = Reason(
        expectedError: nil,
        why: "§8.3 accepts any alg, RS1 included; the rejection is webauthn-rs policy (CredentialInsecureCryptography)"
    )

    /// Not a vector the spec proves wrong: the intermediate's revocation is only visible in a CRL fetched over the
    /// network, and passkeyd verifies attestation offline (the case schema carries no CRL). WebAuthn §7.1 step 23
    /// leaves trust assessment (revocation included, e.g. through FIDO metadata) to the RP's policy.
    private static let revocationNeedsNetwork = Reason(
        expectedError: nil,
        why: "revocation needs the CRL named in the certificate (network); passkeyd verifies offline and accepts the statement"
    )

    /// WebAuthn L3 §5.8.1: "While Token Binding was present in Level 1 and Level 2 of WebAuthn, its use is not
    /// expected in Level 3. The tokenBinding field is reserved so that it will not be reused for a different
    /// purpose." §7.1 and §7.2 have no Token Binding step, so a Level 3 relying party ignores the member; the vector
    /// expects the Level 2 refusal of status "not-supported" that py_webauthn still makes.
    private static let tokenBindingReserved = Reason(
        expectedError: nil,
        why: "§5.8.1 reserves tokenBinding and §7.1 has no Token Binding step; the refusal is Level 2 (py_webauthn still makes it)"
    )

    static let reasons: [String: Reason] = [
        "py_webauthn/none-ml-dsa-44": mlDSA,
        "py_webauthn/none-ml-dsa-65": mlDSA,
        "py_webauthn/none-ml-dsa-87": mlDSA,
        "py_webauthn/auth-ml-dsa-44": mlDSA,
        "py_webauthn/auth-ml-dsa-65": mlDSA,
        "py_webauthn/auth-ml-dsa-87": mlDSA,
        "go-webauthn/apple-ngrok-2020": rawIDNotAttested,
        "webauthn-rs/android-key-webauthn-org": rawIDNotAttested,
        "simplewebauthn/packed-self-es256": rawIDNotBase64URL,
        "simplewebauthn/packed-x5c-yubikey": rawIDNotBase64URL,
        "webauthn-rs/tpm-ecc-rs1-insecure": sha1TPMPolicy,
        "simplewebauthn/android-safetynet-revoked-intermediate": revocationNeedsNetwork,
        "py_webauthn/fido-u2f-tokenbinding-status-not-supported": tokenBindingReserved,
    ]
}
