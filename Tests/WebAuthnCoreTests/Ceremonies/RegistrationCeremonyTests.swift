import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§7.1 registering a new credential")
struct RegistrationCeremonyTests {
    typealias Fixture = CeremonyFixture

    @Test(arguments: SoftwareCredential.supportedAlgorithms, AttestationChoice.allCases)
    func everyAlgorithmAndFormatRegisters(algorithm: COSEAlgorithm, attestation: AttestationChoice) throws {
        let credential = try SoftwareCredential.generate(algorithm)
        let options = RegistrationOptions(attestation: try attestation.kind(at: Fixture.now), signCount: 7)
        let result = try Fixture.register(try Fixture.authenticator.register(credential, challenge: Fixture.challenge, options: options))
        #expect(result.credentialID == credential.id)
        #expect(result.publicKey.algorithm == algorithm)
        #expect(result.publicKey.publicKey.matches(credential.publicKey))
        #expect(result.signCount == 7)
        #expect(result.aaguid == RegistrationOptions.testAAGUID)
        #expect(result.userVerified)
        #expect(result.backupEligible == false)
        #expect(result.transports == ["internal", "hybrid"])
        #expect(result.residentKey == true)
        #expect(result.authenticatorAttachment == "platform")
        switch attestation {
        case .none:
            #expect(result.attestation.format == .none)
            #expect(result.attestation.type == .none)
            #expect(result.attestation.trustEvaluation == .notApplicable)
        case .packedSelf:
            #expect(result.attestation.format == .packed)
            #expect(result.attestation.type == .self)
            #expect(result.attestation.trustPath.isEmpty)
        case .packedCertificate, .packedCertificateWithAAGUID:
            #expect(result.attestation.format == .packed)
            #expect(result.attestation.trustPath.count == 2)
            #expect(result.attestation.trustEvaluation == .notEvaluated)
        }
    }

    @Test func fidoU2FRegistersAnES256Credential() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let response = try Fixture.authenticator.register(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .fidoU2F(certificates), aaguid: [UInt8](repeating: 0, count: 16))
        )
        let result = try Fixture.register(response)
        #expect(result.attestation.format == .fidoU2F)
        #expect(result.attestation.type == .basic)
        #expect(result.attestation.trustPath.map(\.der) == [certificates.leaf.der])
    }

    @Test func credentialTypeMustBePublicKey() throws {
        var response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge)
        response.type = "password"
        #expect(Fixture.registrationFailure(response) == .responseInvalidType)
    }

    @Test func idMustEqualRawId() throws {
        var response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge)
        response.id = Base64URL.encode([1, 2, 3])
        #expect(Fixture.registrationFailure(response) == .idMismatch)
    }

    @Test(arguments: ["rawId", "clientDataJSON", "attestationObject"])
    func binaryMembersMustBeUnpaddedBase64URL(member: String) throws {
        var response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge)
        switch member {
        case "rawId":
            response.rawId += "="
            response.id = response.rawId
        case "clientDataJSON": response.response.clientDataJSON = "e30+"
        default: response.response.attestationObject += "!"
        }
        #expect(Fixture.registrationFailure(response) == .responseInvalidEncoding)
    }

    @Test func clientDataTypeMustBeWebAuthnCreate() throws {
        let options = RegistrationOptions(clientData: ClientDataTemplate(type: "webauthn.get"))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .typeMismatch)
    }

    @Test func clientDataChallengeMustBeTheIssuedOne() throws {
        let response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: [UInt8](repeating: 9, count: 32))
        #expect(Fixture.registrationFailure(response) == .challengeMismatch)
    }

    @Test func clientDataOriginMustBeTheRelyingParty() throws {
        let options = RegistrationOptions(clientData: ClientDataTemplate(type: "webauthn.create", origin: "https://evil.example"))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .originMismatch)
    }

    @Test func attestedCredentialDataMustBePresent() throws {
        let options = RegistrationOptions(
            mutation: ResponseMutation(authenticatorData: { bytes in
                bytes = Array(bytes.prefix(37))
                bytes[32] &= ~AuthenticatorFlags.attestedCredentialData.rawValue
            })
        )
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .missingCredential)
    }

    @Test func rpIdHashMustBeTheRelyingPartyID() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(attestation: .packedSelf, relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("evil.example".utf8)))
        #expect(try Fixture.registrationFailure(credential, options: options) == .relyingPartyIDHashMismatch)
    }

    @Test func additionalRelyingPartyIDsAreAccepted() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("old.example".utf8)))
        #expect(
            try Fixture.registrationFailure(credential, options: options, relyingParty: Fixture.relyingParty())
                == .relyingPartyIDHashMismatch
        )
        #expect(
            try Fixture.registrationFailure(credential, options: options, relyingParty: Fixture.relyingParty(additionalIDs: ["old.example"])) == nil
        )
    }

    @Test func userPresenceIsRequiredUnlessConditional() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(flags: [.userVerified, .attestedCredentialData])
        #expect(try Fixture.registrationFailure(credential, options: options) == .userNotPresent)
        let conditional = RegistrationExpectations(challenge: Fixture.challenge, requiresUserPresence: false)
        #expect(try Fixture.registrationFailure(credential, options: options, expectations: conditional) == nil)
    }

    @Test func userVerificationRequiredNeedsUV() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(flags: [.userPresent, .attestedCredentialData])
        let required = RegistrationExpectations(challenge: Fixture.challenge, userVerification: .required)
        #expect(try Fixture.registrationFailure(credential, options: options, expectations: required) == .userNotVerified)
        #expect(try Fixture.registrationFailure(credential, options: options) == nil)
    }

    @Test func backupStateWithoutEligibilityFails() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(flags: [.userPresent, .userVerified, .attestedCredentialData, .backupState])
        #expect(try Fixture.registrationFailure(credential, options: options) == .backupStateWithoutEligibility)
        let eligible = RegistrationOptions(flags: [.userPresent, .userVerified, .attestedCredentialData, .backupState, .backupEligible])
        let result = try Fixture.register(try Fixture.authenticator.register(credential, challenge: Fixture.challenge, options: eligible))
        #expect(result.backupEligible && result.backupState)
    }

    @Test func algorithmMustHaveBeenOffered() throws {
        let credential = try SoftwareCredential.generate(.eddsa)
        let expectations = RegistrationExpectations(challenge: Fixture.challenge, allowedAlgorithms: [.es256, .rs256])
        #expect(
            try Fixture.registrationFailure(credential, options: RegistrationOptions(), expectations: expectations)
                == .algorithmNotAllowed
        )
    }

    @Test(arguments: [(1023, true), (1024, false)])
    func credentialIDIsAtMost1023Bytes(length: Int, accepted: Bool) throws {
        let credential = try SoftwareCredential.generate(.es256, idLength: length)
        let failure = try Fixture.registrationFailure(credential, options: RegistrationOptions())
        #expect(failure == (accepted ? nil : .credentialIDTooLong))
    }

    @Test func rawIdMustBeTheAttestedCredentialID() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(credentialID: [UInt8](repeating: 0x42, count: 32))
        #expect(try Fixture.registrationFailure(credential, options: options) == .rawIDMismatch)
    }

    @Test(arguments: ["Packed", "none ", "unknown", ""])
    func unknownFormatsFail(format: String) throws {
        let options = RegistrationOptions(format: format)
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .unsupportedFormat)
    }

    @Test func extensionsWithTheEDFlagAreAccepted() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let extensions = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: CBORValue(2))])
        let options = RegistrationOptions(
            attestation: .packedSelf,
            flags: [.userPresent, .userVerified, .attestedCredentialData, .extensionData],
            extensions: extensions
        )
        #expect(try Fixture.registrationFailure(credential, options: options) == nil)
        var withoutFlag = options
        withoutFlag.flags.remove(.extensionData)
        #expect(try Fixture.registrationFailure(credential, options: withoutFlag) == .authenticatorDataTrailingBytes)
    }

    @Test func trailingBytesAfterAuthenticatorDataFail() throws {
        let options = RegistrationOptions(attestation: .packedSelf, trailingBytes: [0x00])
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .authenticatorDataTrailingBytes)
    }

    @Test func aCOSEKeyThatIsNotTheSigningKeyFailsSelfAttestation() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let other = try SoftwareCredential.generate(.es256)
        let options = RegistrationOptions(attestation: .packedSelf, credentialPublicKey: try other.coseKey())
        #expect(try Fixture.registrationFailure(credential, options: options) == .attestationInvalidSignature)
    }
}
