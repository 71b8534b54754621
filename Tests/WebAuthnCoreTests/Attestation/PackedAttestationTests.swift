import CBOR
import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@Suite("§8.2 packed attestation")
struct PackedAttestationTests {
    typealias Fixture = CeremonyFixture

    /// The code registering an ES256 credential with packed x5c attestation fails with; the leaf is changed by `customizeLeaf`.
    static func certificateFailure(aaguid: [UInt8]? = nil, customizeLeaf: (inout CertificateBuilder) -> Void) throws -> WebAuthnError.Code? {
        let certificates = try AttestationCertificates.make(at: Fixture.now, aaguid: aaguid, customizeLeaf: customizeLeaf)
        return try Fixture.registrationFailure(
            try SoftwareCredential.generate(.es256),
            options: RegistrationOptions(attestation: .packed(certificates))
        )
    }

    static func removing(_ attribute: String) -> (inout CertificateBuilder) -> Void {
        { builder in builder.subject.removeAll { $0.attribute == attribute } }
    }

    static func statementFailure(
        _ attestation: AttestationKind,
        change: @escaping @Sendable (inout [CBORMapEntry]) -> Void
    ) throws -> WebAuthnError.Code? {
        let options = RegistrationOptions(attestation: attestation, mutation: ResponseMutation(attestationStatement: change))
        return try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options)
    }

    static func setting(_ key: String, to value: CBORValue?) -> @Sendable (inout [CBORMapEntry]) -> Void {
        { entries in
            entries.removeAll { $0.key == .text(key) }
            if let value { entries.append(CBORMapEntry(key: .text(key), value: value)) }
        }
    }

    // MARK: happy paths

    @Test(arguments: SoftwareCredential.supportedAlgorithms)
    func batchKeysOfEveryAlgorithmVerify(batchAlgorithm: COSEAlgorithm) throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now, leafAlgorithm: batchAlgorithm, aaguid: RegistrationOptions.testAAGUID)
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packed(certificates))
        )
        let result = try Fixture.register(response)
        #expect(result.attestation.type == .attCA)
        #expect(result.attestation.trustPath.map(\.der) == certificates.chain.map(\.der))
    }

    @Test func leafAloneIsBasicAttestation() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let result = try Fixture.register(
            try Fixture.authenticator.register(
                try SoftwareCredential.generate(.es256),
                challenge: Fixture.challenge,
                options: RegistrationOptions(
                    attestation: .packed(certificates),
                    mutation: ResponseMutation(
                        attestationStatement: Self.setting("x5c", to: .array([.bytes(certificates.leaf.der)]))
                    )
                )
            )
        )
        #expect(result.attestation.type == .basic)
    }

    // MARK: statement syntax

    @Test func unexpectedMemberFails() throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("ecdaaKeyId", to: .bytes([1]))) == .malformedStatement)
    }

    @Test(arguments: [CBORValue?.none, .text("ES256"), .bytes([0x26])])
    func algMustBeAnInteger(alg: CBORValue?) throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("alg", to: alg)) == .malformedStatement)
    }

    @Test func unknownAlgFails() throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("alg", to: CBORValue(-999))) == .attestationUnsupportedAlgorithm)
    }

    @Test(arguments: [CBORValue?.none, .text("signature"), .array([.bytes([1])])])
    func sigMustBeAByteString(sig: CBORValue?) throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("sig", to: sig)) == .malformedStatement)
    }

    @Test(arguments: [CBORValue.array([]), .bytes([0x30]), .array([.text("MII")]), .text("x5c")])
    func x5cMustBeANonEmptyArrayOfByteStrings(x5c: CBORValue) throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("x5c", to: x5c)) == .malformedStatement)
    }

    @Test(arguments: [[UInt8](), [0x30, 0x03, 0x02, 0x01, 0x01], [0xFF, 0xFF]])
    func x5cCertificatesMustParse(der: [UInt8]) throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        #expect(
            try Self.statementFailure(.packed(certificates), change: Self.setting("x5c", to: .array([.bytes(der)])))
                == .invalidCertificate
        )
    }

    @Test func certificateWithTrailingBytesFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let change = Self.setting("x5c", to: .array([.bytes(certificates.leaf.der + [0x00])]))
        #expect(try Self.statementFailure(.packed(certificates), change: change) == .invalidCertificate)
    }

    // MARK: self attestation

    @Test func selfAttestationAlgMustBeTheCredentialKeysAlg() throws {
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("alg", to: CBORValue(-35))) == .attestationAlgorithmMismatch)
        #expect(try Self.statementFailure(.packedSelf, change: Self.setting("alg", to: CBORValue(-8))) == .attestationAlgorithmMismatch)
    }

    @Test(arguments: SoftwareCredential.supportedAlgorithms)
    func selfAttestationWithABadSignatureFails(algorithm: COSEAlgorithm) throws {
        let options = RegistrationOptions(attestation: .packedSelf, mutation: ResponseMutation(signature: { $0[$0.count / 2] ^= 0x10 }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(algorithm), options: options) == .attestationInvalidSignature)
    }

    @Test func selfAttestationOverChangedAuthenticatorDataFails() throws {
        let options = RegistrationOptions(attestation: .packedSelf, mutation: ResponseMutation(signedAuthenticatorData: { $0[33] ^= 0x01 }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .attestationInvalidSignature)
    }

    @Test func selfAttestationOverChangedClientDataFails() throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.register(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packedSelf)
        )
        let other = try Fixture.authenticator.register(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(
                attestation: .packedSelf,
                clientData: ClientDataTemplate(type: "webauthn.create", extraMembers: [("other", "true")])
            )
        )
        response.response.clientDataJSON = other.response.clientDataJSON
        #expect(Fixture.registrationFailure(response) == .attestationInvalidSignature)
    }

    // MARK: x5c signature

    @Test func x5cWithABadSignatureFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(attestation: .packed(certificates), mutation: ResponseMutation(signature: { $0[$0.count - 2] ^= 0x01 }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .attestationInvalidSignature)
    }

    @Test func x5cSignatureByTheCredentialKeyFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let credential = try SoftwareCredential.generate(.es256)
        let selfSigned = try Fixture.authenticator.registrationParts(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packedSelf)
        )
        let selfStatement = try AttestationObject(bytes: selfSigned.attestationObject).statement
        let options = RegistrationOptions(
            attestation: .packed(certificates),
            mutation: ResponseMutation(attestationStatement: Self.setting("sig", to: selfStatement["sig"]))
        )
        #expect(try Fixture.registrationFailure(credential, options: options) == .attestationInvalidSignature)
    }

    @Test func algThatDoesNotSuitTheLeafKeyFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        #expect(try Self.statementFailure(.packed(certificates), change: Self.setting("alg", to: CBORValue(-8))) == .attestationInvalidSignature)
        #expect(try Self.statementFailure(.packed(certificates), change: Self.setting("alg", to: CBORValue(-35))) == .attestationInvalidSignature)
    }

    // MARK: §8.2.1 certificate requirements

    @Test(arguments: [1, 2])
    func certificateMustBeVersion3(version: Int) throws {
        #expect(try Self.certificateFailure { $0.version = version } == .certificateRequirements)
    }

    @Test func subjectCountryMustBePresent() throws {
        #expect(try Self.certificateFailure(customizeLeaf: Self.removing("C")) == .certificateRequirements)
    }

    @Test(arguments: ["SWE", "S", ""])
    func subjectCountryMustBeTwoLetters(country: String) throws {
        #expect(
            try Self.certificateFailure { builder in
                builder.subject = builder.subject.map { $0.attribute == "C" ? .init("C", country) : $0 }
            } == .certificateRequirements
        )
    }

    @Test func subjectCountryMustBeSingle() throws {
        #expect(try Self.certificateFailure { $0.subject.insert(.init("C", "US"), at: 0) } == .certificateRequirements)
    }

    @Test func subjectOrganizationMustBePresent() throws {
        #expect(try Self.certificateFailure(customizeLeaf: Self.removing("O")) == .certificateRequirements)
        #expect(
            try Self.certificateFailure { builder in
                builder.subject = builder.subject.map { $0.attribute == "O" ? .init("O", "") : $0 }
            } == .certificateRequirements
        )
    }

    @Test(arguments: ["Authenticator attestation", "Authenticator Attestation ", "Attestation", ""])
    func subjectOrganizationalUnitMustBeAuthenticatorAttestation(unit: String) throws {
        #expect(
            try Self.certificateFailure { builder in
                builder.subject = builder.subject.map { $0.attribute == "OU" ? .init("OU", unit) : $0 }
            } == .certificateRequirements
        )
    }

    @Test func subjectOrganizationalUnitMustBePresent() throws {
        #expect(try Self.certificateFailure(customizeLeaf: Self.removing("OU")) == .certificateRequirements)
    }

    @Test func subjectCommonNameMustBePresent() throws {
        #expect(try Self.certificateFailure(customizeLeaf: Self.removing("CN")) == .certificateRequirements)
    }

    @Test func certificateMustNotBeACA() throws {
        #expect(try Self.certificateFailure { $0.certificateAuthority = true } == .certificateRequirements)
    }

    @Test func basicConstraintsMayBeAbsent() throws {
        #expect(try Self.certificateFailure { $0.certificateAuthority = nil } == nil)
    }

    @Test func aaguidExtensionMustMatchAuthenticatorData() throws {
        var other = RegistrationOptions.testAAGUID
        other[15] ^= 0xFF
        #expect(try Self.certificateFailure(aaguid: other) { _ in } == .aaguidMismatch)
        #expect(try Self.certificateFailure(aaguid: RegistrationOptions.testAAGUID) { _ in } == nil)
    }

    @Test func aaguidExtensionMustNotBeCritical() throws {
        #expect(
            try Self.certificateFailure { $0.extensions = [AttestationCertificates.aaguidExtension(RegistrationOptions.testAAGUID, critical: true)] }
                == .certificateRequirements
        )
    }

    @Test(arguments: [
        [0x0C, 0x10] + RegistrationOptions.testAAGUID, [0x04, 0x0F] + RegistrationOptions.testAAGUID.dropLast(),
        [0x04, 0x10] + RegistrationOptions.testAAGUID + [0x00], RegistrationOptions.testAAGUID,
    ])
    func aaguidExtensionMustBeA16ByteOctetString(value: [UInt8]) throws {
        let extensionEntry = CertificateBuilder.Extension(oid: AttestationCertificates.aaguidExtensionOID, critical: false, value: value)
        #expect(try Self.certificateFailure { $0.extensions = [extensionEntry] } == .certificateRequirements)
    }

    // MARK: trust anchors

    static func trustFailure(
        certificates: AttestationCertificates,
        anchors: [X509Certificate],
        at time: Date = Fixture.now,
        x5c: [X509Certificate]? = nil
    ) throws -> (code: WebAuthnError.Code?, result: RegistrationResult?) {
        var options = RegistrationOptions(attestation: .packed(certificates))
        if let x5c { options.mutation.attestationStatement = setting("x5c", to: .array(x5c.map { .bytes($0.der) })) }
        let response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge, options: options)
        let expectations = RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: anchors)
        do {
            return (nil, try Fixture.register(response, expectations: expectations, relyingParty: Fixture.relyingParty(at: time)))
        } catch {
            return (error.code, nil)
        }
    }

    @Test func chainEndingAtTheConfiguredRootIsTrusted() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let outcome = try Self.trustFailure(certificates: certificates, anchors: [certificates.root])
        #expect(outcome.code == nil)
        #expect(outcome.result?.attestation.trustEvaluation == .trusted(anchorFingerprint: certificates.root.sha256Fingerprint))
    }

    @Test func chainEndingAtATrustedIntermediateIsTrusted() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let outcome = try Self.trustFailure(certificates: certificates, anchors: [certificates.intermediate])
        #expect(outcome.result?.attestation.trustEvaluation == .trusted(anchorFingerprint: certificates.intermediate.sha256Fingerprint))
    }

    @Test func chainNotEndingAtAConfiguredAnchorIsUntrusted() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let stranger = try AttestationCertificates.make(at: Fixture.now)
        #expect(
            try Self.trustFailure(certificates: certificates, anchors: [stranger.root, stranger.intermediate]).code
                == .certificateChainUntrusted
        )
        #expect(
            try Self.trustFailure(certificates: certificates, anchors: [certificates.root], x5c: [certificates.leaf]).code
                == .certificateChainUntrusted
        )
    }

    @Test(arguments: [400 * CeremonyFixture.day, -2 * CeremonyFixture.day])
    func certificateOutsideItsValidityAtTheInjectedTimeFails(offset: TimeInterval) throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let outcome = try Self.trustFailure(certificates: certificates, anchors: [certificates.root], at: Fixture.now.addingTimeInterval(offset))
        #expect(outcome.code == .certificateExpired)
    }

    @Test func withoutAnchorsThePathIsNotEvaluated() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let outcome = try Self.trustFailure(certificates: certificates, anchors: [])
        #expect(outcome.result?.attestation.trustEvaluation == .notEvaluated)
    }

    @Test func selfAttestationHasNoPathToEvaluate() throws {
        let anchors = [try AttestationCertificates.make(at: Fixture.now).root]
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packedSelf)
        )
        let result = try Fixture.register(response, expectations: RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: anchors))
        #expect(result.attestation.trustEvaluation == .notApplicable)
    }
}
