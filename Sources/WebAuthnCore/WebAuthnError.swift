/// The one error type of the verification core: a stable machine `code` (e.g. `clientData.challengeMismatch`)
/// naming the step that failed, and a human `reason` safe to log. Neither contains secrets or personal data.
///
/// A code's Swift name is its wire name without the group (`.originMismatch` for `clientData.originMismatch`), or with
/// the group when the bare name is shared or says too little (`.attestationInvalidSignature`, `.coseKeyMalformed`).
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form (`clientData.originMismatch`) and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case invalidUTF8 = "clientData.invalidUTF8"
            case invalidJSON = "clientData.invalidJSON"
            case invalidMember = "clientData.invalidMember"
            case missingType = "clientData.missingType"
            case missingChallenge = "clientData.missingChallenge"
            case missingOrigin = "clientData.missingOrigin"
            case typeMismatch = "clientData.typeMismatch"
            case challengeMismatch = "clientData.challengeMismatch"
            case originMismatch = "clientData.originMismatch"
            case crossOriginNotAllowed = "clientData.crossOriginNotAllowed"
            case topOriginMismatch = "clientData.topOriginMismatch"
            case responseInvalidType = "response.invalidType"
            case idMismatch = "response.idMismatch"
            case rawIDMismatch = "response.rawIdMismatch"
            case responseInvalidEncoding = "response.invalidEncoding"
            case responseMalformed = "response.malformed"
            case credentialIDTooLong = "credential.idTooLong"
            case algorithmNotAllowed = "credential.algorithmNotAllowed"
            case credentialNotAllowed = "credential.notAllowed"
            case credentialUnknown = "credential.unknown"
            case wrongUser = "credential.wrongUser"
            case userHandleMismatch = "credential.userHandleMismatch"
            case missingUserHandle = "credential.missingUserHandle"
            case authenticatorDataTooShort = "authenticatorData.tooShort"
            case authenticatorDataTruncated = "authenticatorData.truncated"
            case malformedPublicKey = "authenticatorData.malformedPublicKey"
            case missingExtensions = "authenticatorData.missingExtensions"
            case malformedExtensions = "authenticatorData.malformedExtensions"
            case authenticatorDataTrailingBytes = "authenticatorData.trailingBytes"
            case missingCredential = "authenticatorData.missingCredential"
            case unexpectedCredential = "authenticatorData.unexpectedCredential"
            case relyingPartyIDHashMismatch = "authenticatorData.rpIdHashMismatch"
            case userNotPresent = "authenticatorData.userNotPresent"
            case userNotVerified = "authenticatorData.userNotVerified"
            case backupStateWithoutEligibility = "authenticatorData.backupStateWithoutEligibility"
            case signCountNotIncreased = "authenticatorData.signCountNotIncreased"
            case assertionInvalidSignature = "assertion.invalidSignature"
            case attestationObjectMalformed = "attestationObject.malformed"
            case missingFormat = "attestationObject.missingFormat"
            case missingStatement = "attestationObject.missingStatement"
            case missingAuthenticatorData = "attestationObject.missingAuthenticatorData"
            case coseKeyMalformed = "coseKey.malformed"
            case unsupportedKeyType = "coseKey.unsupportedKeyType"
            case missingAlgorithm = "coseKey.missingAlgorithm"
            case coseKeyUnsupportedAlgorithm = "coseKey.unsupportedAlgorithm"
            case coseKeyAlgorithmMismatch = "coseKey.algorithmMismatch"
            case curveMismatch = "coseKey.curveMismatch"
            case containsPrivateKey = "coseKey.containsPrivateKey"
            case weakKey = "coseKey.weakKey"
            case coseKeyInvalidKey = "coseKey.invalidKey"
            case unsupportedFormat = "attestation.unsupportedFormat"
            case malformedStatement = "attestation.malformedStatement"
            case attestationUnsupportedAlgorithm = "attestation.unsupportedAlgorithm"
            case attestationAlgorithmMismatch = "attestation.algorithmMismatch"
            case attestationInvalidSignature = "attestation.invalidSignature"
            case invalidCertificate = "attestation.invalidCertificate"
            case certificateExpired = "attestation.certificateExpired"
            case certificateChainUntrusted = "attestation.certificateChainUntrusted"
            case certificateRequirements = "attestation.certificateRequirements"
            case publicKeyMismatch = "attestation.publicKeyMismatch"
            case aaguidMismatch = "attestation.aaguidMismatch"
            case aaguidNotAllowed = "attestation.aaguidNotAllowed"
            case notTrusted = "attestation.notTrusted"
            case authenticatorRevoked = "attestation.authenticatorRevoked"
            case tpmUnsupportedVersion = "attestation.tpmUnsupportedVersion"
            case tpmStructureMalformed = "attestation.tpmStructureMalformed"
            case tpmInvalidMagic = "attestation.tpmInvalidMagic"
            case tpmInvalidType = "attestation.tpmInvalidType"
            case tpmExtraDataMismatch = "attestation.tpmExtraDataMismatch"
            case tpmUnsupportedNameAlgorithm = "attestation.tpmUnsupportedNameAlgorithm"
            case tpmNameMismatch = "attestation.tpmNameMismatch"
            case tpmUnsupportedKeyType = "attestation.tpmUnsupportedKeyType"
            case tpmPublicKeyMismatch = "attestation.tpmPublicKeyMismatch"
            case aikCertificateVersion = "attestation.aikCertificateVersion"
            case aikCertificateSubject = "attestation.aikCertificateSubject"
            case aikCertificateSubjectAlternativeName = "attestation.aikCertificateSubjectAlternativeName"
            case aikCertificateExtendedKeyUsage = "attestation.aikCertificateExtendedKeyUsage"
            case aikCertificateBasicConstraints = "attestation.aikCertificateBasicConstraints"
            case androidKeyChallengeMismatch = "attestation.androidKeyChallengeMismatch"
            case androidKeyDescriptionMissing = "attestation.androidKeyDescriptionMissing"
            case androidKeyDescriptionMalformed = "attestation.androidKeyDescriptionMalformed"
            case androidKeyAllApplications = "attestation.androidKeyAllApplications"
            case androidKeyOriginNotGenerated = "attestation.androidKeyOriginNotGenerated"
            case androidKeyPurposeNotSign = "attestation.androidKeyPurposeNotSign"
            case safetyNetMalformedResponse = "attestation.safetyNetMalformedResponse"
            case safetyNetHostnameMismatch = "attestation.safetyNetHostnameMismatch"
            case safetyNetNonceMismatch = "attestation.safetyNetNonceMismatch"
            case safetyNetCTSProfileMismatch = "attestation.safetyNetCTSProfileMismatch"
            case safetyNetTimestampOutOfRange = "attestation.safetyNetTimestampOutOfRange"
            case appleNonceMissing = "attestation.appleNonceMissing"
            case appleNonceMismatch = "attestation.appleNonceMismatch"
            case compoundMalformed = "attestation.compoundMalformed"
            case compoundTooFewStatements = "attestation.compoundTooFewStatements"
            case compoundNested = "attestation.compoundNested"
            case metadataMalformed = "metadata.malformed"
            case metadataUntrustedChain = "metadata.untrustedChain"
            case metadataInvalidSignature = "metadata.invalidSignature"
            case metadataStale = "metadata.stale"
            case caseInvalidInput = "case.invalidInput"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `clientDataJSON` is not valid UTF-8 (§7.1 step 5 / §7.2 step 8).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// `clientDataJSON` is not a strict JSON object, or repeats a member.
        public static let invalidJSON = Code(.invalidJSON)
        /// A client data member has the wrong JSON type.
        public static let invalidMember = Code(.invalidMember)
        /// The client data has no `type`.
        public static let missingType = Code(.missingType)
        /// The client data has no `challenge`.
        public static let missingChallenge = Code(.missingChallenge)
        /// The client data has no `origin`.
        public static let missingOrigin = Code(.missingOrigin)
        /// The client data `type` is not the ceremony's (`webauthn.create` / `webauthn.get`).
        public static let typeMismatch = Code(.typeMismatch)
        /// The client data challenge is not the one issued for this ceremony.
        public static let challengeMismatch = Code(.challengeMismatch)
        /// The client data origin is not one of the relying party's origins.
        public static let originMismatch = Code(.originMismatch)
        /// The ceremony ran cross-origin or embedded, which the relying party does not allow.
        public static let crossOriginNotAllowed = Code(.crossOriginNotAllowed)
        /// The client data `topOrigin` is not a site the relying party may be embedded in.
        public static let topOriginMismatch = Code(.topOriginMismatch)
        /// The credential's `type` is not `public-key`.
        public static let responseInvalidType = Code(.responseInvalidType)
        /// The credential's `id` is not the base64url encoding of its `rawId`.
        public static let idMismatch = Code(.idMismatch)
        /// `rawId` differs from the credential ID in the attested credential data.
        public static let rawIDMismatch = Code(.rawIDMismatch)
        /// A response member is not unpadded base64url.
        public static let responseInvalidEncoding = Code(.responseInvalidEncoding)
        /// A test-vector case's response is not the JSON of its ceremony.
        public static let responseMalformed = Code(.responseMalformed)
        /// The credential ID is longer than 1023 bytes.
        public static let credentialIDTooLong = Code(.credentialIDTooLong)
        /// The credential's algorithm was not offered in this ceremony.
        public static let algorithmNotAllowed = Code(.algorithmNotAllowed)
        /// The credential was not in `allowCredentials`.
        public static let credentialNotAllowed = Code(.credentialNotAllowed)
        /// The credential record does not match `rawId`.
        public static let credentialUnknown = Code(.credentialUnknown)
        /// The credential does not belong to the identified user.
        public static let wrongUser = Code(.wrongUser)
        /// `userHandle` is not the handle of the identified user or of the credential's owner.
        public static let userHandleMismatch = Code(.userHandleMismatch)
        /// A discoverable sign-in sent no `userHandle`.
        public static let missingUserHandle = Code(.missingUserHandle)
        /// The authenticator data is shorter than 37 bytes.
        public static let authenticatorDataTooShort = Code(.authenticatorDataTooShort)
        /// The attested credential data is truncated.
        public static let authenticatorDataTruncated = Code(.authenticatorDataTruncated)
        /// The credential public key is not well-formed CBOR.
        public static let malformedPublicKey = Code(.malformedPublicKey)
        /// The ED flag is set but no extensions follow.
        public static let missingExtensions = Code(.missingExtensions)
        /// The extensions are not a well-formed CBOR map.
        public static let malformedExtensions = Code(.malformedExtensions)
        /// Bytes follow the authenticator data (the AT/ED flags disagree with the content).
        public static let authenticatorDataTrailingBytes = Code(.authenticatorDataTrailingBytes)
        /// Registration authenticator data has no attested credential data (AT flag clear).
        public static let missingCredential = Code(.missingCredential)
        /// Assertion authenticator data carries attested credential data.
        public static let unexpectedCredential = Code(.unexpectedCredential)
        /// `rpIdHash` is not the SHA-256 of the relying party ID.
        public static let relyingPartyIDHashMismatch = Code(.relyingPartyIDHashMismatch)
        /// The authenticator did not assert user presence (UP).
        public static let userNotPresent = Code(.userNotPresent)
        /// User verification was required and the authenticator did not verify the user (UV).
        public static let userNotVerified = Code(.userNotVerified)
        /// The BS flag is set while BE is not.
        public static let backupStateWithoutEligibility = Code(.backupStateWithoutEligibility)
        /// The signature counter did not increase past the stored one (§7.2 step 23).
        public static let signCountNotIncreased = Code(.signCountNotIncreased)
        /// The assertion signature does not verify with the stored public key.
        public static let assertionInvalidSignature = Code(.assertionInvalidSignature)
        /// The attestation object is not a CBOR map of exactly `fmt`, `attStmt` and `authData`.
        public static let attestationObjectMalformed = Code(.attestationObjectMalformed)
        /// The attestation object has no text `fmt`.
        public static let missingFormat = Code(.missingFormat)
        /// The attestation object has no `attStmt`.
        public static let missingStatement = Code(.missingStatement)
        /// The attestation object has no `authData` byte string.
        public static let missingAuthenticatorData = Code(.missingAuthenticatorData)
        /// The credential public key is not a well-formed COSE_Key.
        public static let coseKeyMalformed = Code(.coseKeyMalformed)
        /// The COSE_Key `kty` is missing or not OKP, EC2 or RSA.
        public static let unsupportedKeyType = Code(.unsupportedKeyType)
        /// The COSE_Key has no `alg`.
        public static let missingAlgorithm = Code(.missingAlgorithm)
        /// The COSE_Key `alg` is not one passkeyd supports.
        public static let coseKeyUnsupportedAlgorithm = Code(.coseKeyUnsupportedAlgorithm)
        /// The COSE_Key `alg` does not fit its `kty`.
        public static let coseKeyAlgorithmMismatch = Code(.coseKeyAlgorithmMismatch)
        /// The COSE_Key curve does not match its `alg`.
        public static let curveMismatch = Code(.curveMismatch)
        /// The COSE_Key contains a private key.
        public static let containsPrivateKey = Code(.containsPrivateKey)
        /// The RSA modulus is shorter than 2048 bits.
        public static let weakKey = Code(.weakKey)
        /// The COSE_Key parameters do not make a usable public key.
        public static let coseKeyInvalidKey = Code(.coseKeyInvalidKey)
        /// The attestation format is not one passkeyd knows.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// The attestation statement lacks a member or has one of the wrong type.
        public static let malformedStatement = Code(.malformedStatement)
        /// The attestation statement's `alg` is not supported.
        public static let attestationUnsupportedAlgorithm = Code(.attestationUnsupportedAlgorithm)
        /// The attestation's algorithm does not fit the credential key.
        public static let attestationAlgorithmMismatch = Code(.attestationAlgorithmMismatch)
        /// The attestation signature does not verify.
        public static let attestationInvalidSignature = Code(.attestationInvalidSignature)
        /// An attestation certificate cannot be parsed or its key is unusable.
        public static let invalidCertificate = Code(.invalidCertificate)
        /// An attestation certificate is not valid at the verification time.
        public static let certificateExpired = Code(.certificateExpired)
        /// The attestation certificate path does not end at a trust anchor.
        public static let certificateChainUntrusted = Code(.certificateChainUntrusted)
        /// The attestation certificate does not meet the format's requirements (§8.2.1).
        public static let certificateRequirements = Code(.certificateRequirements)
        /// The credential certificate's key differs from the credential public key.
        public static let publicKeyMismatch = Code(.publicKeyMismatch)
        /// The AAGUID in the attestation certificate differs from the authenticator data's.
        public static let aaguidMismatch = Code(.aaguidMismatch)
        /// The authenticator's AAGUID is not on the relying party's allow list.
        public static let aaguidNotAllowed = Code(.aaguidNotAllowed)
        /// The policy requires a verified attestation and this one is none, self or unevaluated.
        public static let notTrusted = Code(.notTrusted)
        /// The FIDO metadata's latest status for this authenticator is a refused one.
        public static let authenticatorRevoked = Code(.authenticatorRevoked)
        /// The tpm statement's `ver` is not "2.0".
        public static let tpmUnsupportedVersion = Code(.tpmUnsupportedVersion)
        /// `certInfo` or `pubArea` is truncated or has trailing bytes.
        public static let tpmStructureMalformed = Code(.tpmStructureMalformed)
        /// `certInfo.magic` is not TPM_GENERATED_VALUE.
        public static let tpmInvalidMagic = Code(.tpmInvalidMagic)
        /// `certInfo.type` is not TPM_ST_ATTEST_CERTIFY.
        public static let tpmInvalidType = Code(.tpmInvalidType)
        /// `certInfo.extraData` is not the hash of authenticatorData || clientDataHash.
        public static let tpmExtraDataMismatch = Code(.tpmExtraDataMismatch)
        /// `pubArea.nameAlg` is not SHA-1, SHA-256, SHA-384 or SHA-512.
        public static let tpmUnsupportedNameAlgorithm = Code(.tpmUnsupportedNameAlgorithm)
        /// The attested name in `certInfo` is not the Name of `pubArea`.
        public static let tpmNameMismatch = Code(.tpmNameMismatch)
        /// `pubArea.type` is neither TPM_ALG_RSA nor TPM_ALG_ECC.
        public static let tpmUnsupportedKeyType = Code(.tpmUnsupportedKeyType)
        /// `pubArea` does not describe the credential public key.
        public static let tpmPublicKeyMismatch = Code(.tpmPublicKeyMismatch)
        /// The AIK certificate is not X.509 version 3 (§8.3.1).
        public static let aikCertificateVersion = Code(.aikCertificateVersion)
        /// The AIK certificate subject is not empty (§8.3.1).
        public static let aikCertificateSubject = Code(.aikCertificateSubject)
        /// The AIK certificate's Subject Alternative Name is missing, not critical or incomplete (§8.3.1).
        public static let aikCertificateSubjectAlternativeName = Code(.aikCertificateSubjectAlternativeName)
        /// The AIK certificate's Extended Key Usage lacks tcg-kp-AIKCertificate (§8.3.1).
        public static let aikCertificateExtendedKeyUsage = Code(.aikCertificateExtendedKeyUsage)
        /// The AIK certificate is a CA certificate (§8.3.1).
        public static let aikCertificateBasicConstraints = Code(.aikCertificateBasicConstraints)
        /// The key description's `attestationChallenge` differs from clientDataHash.
        public static let androidKeyChallengeMismatch = Code(.androidKeyChallengeMismatch)
        /// The credential certificate has no Android key attestation extension.
        public static let androidKeyDescriptionMissing = Code(.androidKeyDescriptionMissing)
        /// The Android key attestation extension is not a valid KeyDescription.
        public static let androidKeyDescriptionMalformed = Code(.androidKeyDescriptionMalformed)
        /// The key is usable by all applications (`allApplications` present).
        public static let androidKeyAllApplications = Code(.androidKeyAllApplications)
        /// The key's origin is not KM_ORIGIN_GENERATED.
        public static let androidKeyOriginNotGenerated = Code(.androidKeyOriginNotGenerated)
        /// The key's purpose does not include KM_PURPOSE_SIGN.
        public static let androidKeyPurposeNotSign = Code(.androidKeyPurposeNotSign)
        /// The SafetyNet response is not a compact JWS with `x5c`.
        public static let safetyNetMalformedResponse = Code(.safetyNetMalformedResponse)
        /// The SafetyNet signing certificate is not issued to attest.android.com.
        public static let safetyNetHostnameMismatch = Code(.safetyNetHostnameMismatch)
        /// The SafetyNet nonce is not base64(SHA-256(authenticatorData || clientDataHash)).
        public static let safetyNetNonceMismatch = Code(.safetyNetNonceMismatch)
        /// SafetyNet's `ctsProfileMatch` is not true.
        public static let safetyNetCTSProfileMismatch = Code(.safetyNetCTSProfileMismatch)
        /// SafetyNet's `timestampMs` is too far from the verification time.
        public static let safetyNetTimestampOutOfRange = Code(.safetyNetTimestampOutOfRange)
        /// The credential certificate has no Apple nonce extension.
        public static let appleNonceMissing = Code(.appleNonceMissing)
        /// The Apple nonce extension is malformed or not SHA-256(authData || clientDataHash).
        public static let appleNonceMismatch = Code(.appleNonceMismatch)
        /// The compound statement is not an array of `{fmt, attStmt}` maps.
        public static let compoundMalformed = Code(.compoundMalformed)
        /// The compound statement holds fewer than two statements.
        public static let compoundTooFewStatements = Code(.compoundTooFewStatements)
        /// A compound statement contains another compound statement.
        public static let compoundNested = Code(.compoundNested)
        /// The FIDO metadata BLOB or the authenticator name list is malformed.
        public static let metadataMalformed = Code(.metadataMalformed)
        /// The metadata BLOB's signing chain is missing or does not end at the configured root.
        public static let metadataUntrustedChain = Code(.metadataUntrustedChain)
        /// The metadata BLOB signature does not verify with its signing certificate.
        public static let metadataInvalidSignature = Code(.metadataInvalidSignature)
        /// The metadata BLOB's `nextUpdate` passed more than the allowed grace ago.
        public static let metadataStale = Code(.metadataStale)
        /// A test-vector case's own input (time, challenge, key, anchor) is unreadable.
        public static let caseInvalidInput = Code(.caseInvalidInput)

        /// The wire and log form, e.g. `clientData.invalidUTF8`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// Detail for logs, operators and `passkeyd verify`; never secrets or personal data.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
