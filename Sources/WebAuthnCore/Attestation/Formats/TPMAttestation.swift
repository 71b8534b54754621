import CryptoCore

/// The `tpm` attestation statement format (WebAuthn §8.3).
enum TPMAttestation {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.3: attStmt is {ver, alg, x5c, sig, certInfo, pubArea}; check that it is valid CBOR of that syntax.
        try input.requireOnly(["ver", "alg", "x5c", "sig", "certInfo", "pubArea"], format: .tpm)
        // §8.3: ver is the version of the TPM specification to which the signature conforms; it MUST be "2.0".
        guard let version = input.statement["ver"]?.textValue else {
            throw WebAuthnError(.malformedStatement, "tpm attStmt ver is missing or not text")
        }
        guard version == "2.0" else {
            throw WebAuthnError(.tpmUnsupportedVersion, "tpm attStmt ver is not \"2.0\"")
        }
        let algorithm = try input.algorithm()
        let signature = try input.signature()
        guard let certificateInfoBytes = input.statement["certInfo"]?.bytesValue,
            let publicAreaBytes = input.statement["pubArea"]?.bytesValue
        else {
            throw WebAuthnError(.malformedStatement, "tpm attStmt certInfo or pubArea is missing or not a byte string")
        }
        let publicArea = try TPMTPublic(bytes: publicAreaBytes)
        let certificateInfo = try TPMSAttest(bytes: certificateInfoBytes)
        // §8.3 step 2: verify that the public key specified by the parameters and unique fields of pubArea is
        // identical to the credentialPublicKey in the attestedCredentialData in authenticatorData.
        try checkPublicArea(publicArea, describes: input.credential.credentialPublicKey.publicKey)
        // §8.3 step 3: concatenate authenticatorData and clientDataHash to form attToBeSigned.
        let attToBeSigned = input.signedData
        // §8.3 step 4: verify that magic is set to TPM_GENERATED_VALUE.
        guard certificateInfo.magic == TPMSAttest.generatedValue else {
            throw WebAuthnError(.tpmInvalidMagic, "certInfo magic is not TPM_GENERATED_VALUE")
        }
        // §8.3 step 4: verify that type is set to TPM_ST_ATTEST_CERTIFY.
        guard certificateInfo.type == TPMSAttest.certifyType else {
            throw WebAuthnError(.tpmInvalidType, "certInfo type is not TPM_ST_ATTEST_CERTIFY")
        }
        // §8.3 step 4: verify that extraData is set to the hash of attToBeSigned using the hash algorithm employed in "alg".
        guard let signatureDigest = algorithm.signatureAlgorithm.digest else {
            throw WebAuthnError(.attestationUnsupportedAlgorithm, "tpm attestation alg \(algorithm.rawValue) names no hash algorithm")
        }
        guard certificateInfo.extraData == signatureDigest.hash(attToBeSigned) else {
            throw WebAuthnError(.tpmExtraDataMismatch, "certInfo extraData is not the hash of authenticatorData || clientDataHash")
        }
        // §8.3 step 4: verify that attested contains a TPMS_CERTIFY_INFO structure whose name field contains a valid
        // Name for pubArea, as computed using the algorithm in the nameAlg field of pubArea ([TPMv2-Part1] §16).
        guard let nameDigest = TPMTPublic.digest(forAlgorithm: publicArea.nameAlgorithm) else {
            throw WebAuthnError(.tpmUnsupportedNameAlgorithm, "pubArea nameAlg is not SHA-1, SHA-256, SHA-384 or SHA-512")
        }
        let name = [UInt8(publicArea.nameAlgorithm >> 8), UInt8(publicArea.nameAlgorithm & 0xFF)] + nameDigest.hash(publicArea.bytes)
        guard certificateInfo.attestedName == name else {
            throw WebAuthnError(.tpmNameMismatch, "certInfo attested name is not the Name of pubArea")
        }
        // §8.3 step 5: verify that x5c is present.
        guard let certificates = try input.certificates() else {
            throw WebAuthnError(.malformedStatement, "tpm attestation requires x5c")
        }
        let attestationCertificate = certificates[0]
        let attestationKey = try input.publicKey(of: attestationCertificate, role: "AIK certificate")
        // §8.3 step 5: verify the sig is a valid signature over certInfo using the attestation public key in aikCert
        // with the algorithm specified in alg.
        guard attestationKey.verify(signature: signature, message: certificateInfoBytes, algorithm: algorithm.signatureAlgorithm) else {
            throw WebAuthnError(.attestationInvalidSignature, "tpm attestation signature does not verify with the AIK certificate")
        }
        // §8.3 step 5: verify that aikCert meets the requirements in §8.3.1.
        try TPMCertificateRequirements.check(attestationCertificate)
        // §8.3 step 5: if aikCert contains id-fido-gen-ce-aaguid, verify that its value matches the aaguid in authenticatorData.
        try PackedCertificateRequirements.checkAAGUIDExtension(attestationCertificate, aaguid: input.credential.aaguid)
        // §8.3 step 6: return attestation type AttCA and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .tpm, type: .attCA, trustPath: certificates, trustEvaluation: evaluation)
    }

    /// Compares pubArea's parameters and unique with the credential public key. Integers are compared by value:
    /// TPMs may send a coordinate with a leading zero byte, or without the leading zeros of a short one.
    static func checkPublicArea(_ publicArea: TPMTPublic, describes credentialKey: PublicKey) throws(WebAuthnError) {
        let matches: Bool
        switch (publicArea.parameters, publicArea.unique) {
        case (.rsa(let keyBits, let exponent), .rsa(let modulus)):
            guard let components = try? credentialKey.rsaComponents() else {
                throw WebAuthnError(.tpmPublicKeyMismatch, "pubArea is an RSA key but the credential key is not")
            }
            let expectedExponent: UInt64 = exponent == 0 ? 65537 : UInt64(exponent)
            let credentialExponent = significant(components.exponent)
            matches =
                Int(keyBits) == credentialKey.bits
                && significant(modulus) == significant(components.modulus)
                && credentialExponent.count <= 8
                && credentialExponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == expectedExponent
        case (.ecc(let curveID), .ecc(let x, let y)):
            guard let coordinates = try? credentialKey.ecCoordinates() else {
                throw WebAuthnError(.tpmPublicKeyMismatch, "pubArea is an ECC key but the credential key is not")
            }
            matches =
                TPMTPublic.curve(forIdentifier: curveID) == credentialKey.curve
                && significant(x) == significant(coordinates.x)
                && significant(y) == significant(coordinates.y)
        default:
            matches = false
        }
        guard matches else {
            throw WebAuthnError(.tpmPublicKeyMismatch, "pubArea parameters and unique do not describe the credential public key")
        }
    }

    /// A big-endian unsigned integer without its leading zero bytes.
    private static func significant(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }
}
