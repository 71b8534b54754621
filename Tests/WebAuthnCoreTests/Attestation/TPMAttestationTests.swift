import CBOR
import CryptoCore
import Foundation
import Testing
import WebAuthnVectors

@testable import WebAuthnCore

/// The `tpm` format (WebAuthn §8.3): every check refuses a vector changed in exactly the field it guards.
@Suite struct TPMAttestationTests {
    /// ECC credential, no scheme details, one AIK certificate, spec trust anchor.
    static let eccCase = "w3c-l3/tpm-es256/registration"
    /// RSA credential from a Windows Hello TPM, 32-byte authPolicy.
    static let rsaCase = "simplewebauthn/tpm-rs256-sha256"

    private func outcome(_ id: String, _ edit: (inout EditableVectorCase) throws -> Void) throws -> VerificationOutcome {
        var editable = try EditableVectorCase(id)
        try edit(&editable)
        return try editable.run()
    }

    /// Where a TPMS_ATTEST's extraData and attested name start (after their size fields).
    private func certInfoOffsets(_ bytes: [UInt8]) -> (extraData: Int, name: Int) {
        let signerLength = Int(bytes[6]) << 8 | Int(bytes[7])
        let extraDataLength = Int(bytes[8 + signerLength]) << 8 | Int(bytes[9 + signerLength])
        let extraData = 10 + signerLength
        return (extraData, extraData + extraDataLength + 17 + 8 + 2)
    }

    /// Where a TPMT_PUBLIC's parameters start (after authPolicy).
    private func parametersOffset(_ bytes: [UInt8]) -> Int {
        10 + (Int(bytes[8]) << 8 | Int(bytes[9]))
    }

    @Test(arguments: [eccCase, rsaCase])
    func unmodifiedVectorsVerify(id: String) throws {
        let result = try outcome(id) { _ in }
        #expect(result.ok, "\(result.error ?? "") \(result.reason ?? "")")
        #expect(result.fmt == "tpm")
        #expect(result.attestationType == "attCA")
    }

    @Test func versionMustBeTwoPointZero() throws {
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("ver", to: .text("1.0")) }.errorCode == .tpmUnsupportedVersion)
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("ver", to: nil) }.errorCode == .malformedStatement)
    }

    @Test func unexpectedMembersAreRefused() throws {
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("extra", to: .bytes([1])) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("certInfo", to: .text("x")) }.errorCode == .malformedStatement)
    }

    @Test func eccUniqueMustBeTheCredentialKey() throws {
        let result = try outcome(Self.eccCase) { editable in
            try editable.editStatementBytes("pubArea") { bytes in bytes[parametersOffset(bytes) + 10] ^= 0x01 }
        }
        #expect(result.errorCode == .tpmPublicKeyMismatch)
    }

    @Test func eccCurveMustBeTheCredentialCurve() throws {
        let result = try outcome(Self.eccCase) { editable in
            try editable.editStatementBytes("pubArea") { bytes in bytes[parametersOffset(bytes) + 5] = 0x04 }
        }
        #expect(result.errorCode == .tpmPublicKeyMismatch)
    }

    @Test func rsaModulusMustBeTheCredentialKey() throws {
        let result = try outcome(Self.rsaCase) { editable in
            try editable.editStatementBytes("pubArea") { bytes in bytes[bytes.count - 1] ^= 0x01 }
        }
        #expect(result.errorCode == .tpmPublicKeyMismatch)
    }

    @Test func rsaExponentMustBeTheCredentialExponent() throws {
        let result = try outcome(Self.rsaCase) { editable in
            try editable.editStatementBytes("pubArea") { bytes in bytes[parametersOffset(bytes) + 9] = 0x03 }
        }
        #expect(result.errorCode == .tpmPublicKeyMismatch)
    }

    @Test func keyTypeMustBeRSAOrECC() throws {
        let result = try outcome(Self.eccCase) { try $0.editStatementBytes("pubArea") { bytes in bytes[1] = 0x08 } }
        #expect(result.errorCode == .tpmUnsupportedKeyType)
    }

    @Test func magicMustBeTPMGeneratedValue() throws {
        let result = try outcome(Self.eccCase) { try $0.editStatementBytes("certInfo") { bytes in bytes[0] = 0x00 } }
        #expect(result.errorCode == .tpmInvalidMagic)
    }

    @Test func typeMustBeAttestCertify() throws {
        let result = try outcome(Self.eccCase) { try $0.editStatementBytes("certInfo") { bytes in bytes[5] = 0x18 } }
        #expect(result.errorCode == .tpmInvalidType)
    }

    @Test func extraDataMustBeTheHashOfAttToBeSigned() throws {
        let changedBytes = try outcome(Self.eccCase) { editable in
            try editable.editStatementBytes("certInfo") { bytes in bytes[certInfoOffsets(bytes).extraData] ^= 0x01 }
        }
        #expect(changedBytes.errorCode == .tpmExtraDataMismatch)
        let changedClientData = try outcome(Self.eccCase) { try $0.changeClientDataHash() }
        #expect(changedClientData.errorCode == .tpmExtraDataMismatch)
    }

    @Test func extraDataIsHashedWithTheHashOfAlg() throws {
        let es384 = try outcome(Self.eccCase) { try $0.setStatementMember("alg", to: CBORValue(-35)) }
        #expect(es384.errorCode == .tpmExtraDataMismatch)
        let rs1 = try outcome(Self.rsaCase) { try $0.setStatementMember("alg", to: CBORValue(-65535)) }
        #expect(rs1.errorCode == .tpmExtraDataMismatch)
    }

    @Test func algWithoutAHashIsRefused() throws {
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("alg", to: CBORValue(-8)) }.errorCode == .attestationUnsupportedAlgorithm)
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("alg", to: CBORValue(-1)) }.errorCode == .attestationUnsupportedAlgorithm)
    }

    @Test func attestedNameMustBeTheNameOfPubArea() throws {
        let result = try outcome(Self.eccCase) { editable in
            try editable.editStatementBytes("certInfo") { bytes in bytes[certInfoOffsets(bytes).name + 5] ^= 0x01 }
        }
        #expect(result.errorCode == .tpmNameMismatch)
    }

    @Test func nameCoversEveryByteOfPubArea() throws {
        let result = try outcome(Self.eccCase) { try $0.editStatementBytes("pubArea") { bytes in bytes[7] ^= 0x02 } }
        #expect(result.errorCode == .tpmNameMismatch)
    }

    @Test func nameAlgMustBeAKnownHash() throws {
        let result = try outcome(Self.eccCase) { try $0.editStatementBytes("pubArea") { bytes in bytes[3] = 0x12 } }
        #expect(result.errorCode == .tpmUnsupportedNameAlgorithm)
    }

    @Test(arguments: [eccCase, rsaCase])
    func signatureMustVerifyOverCertInfo(id: String) throws {
        let result = try outcome(id) { try $0.editStatementBytes("sig") { bytes in bytes[bytes.count - 1] ^= 0x01 } }
        #expect(result.errorCode == .attestationInvalidSignature)
    }

    @Test func x5cIsRequired() throws {
        #expect(try outcome(Self.eccCase) { try $0.setStatementMember("x5c", to: nil) }.errorCode == .malformedStatement)
    }

    @Test func aaguidExtensionMustMatchAuthenticatorData() throws {
        #expect(try EditableVectorCase("simplewebauthn/tpm-aaguid-ext-mismatch").run().errorCode == .aaguidMismatch)
    }

    @Test func expiredAIKCertificateIsRefused() throws {
        #expect(try EditableVectorCase("simplewebauthn/tpm-rs256-dontneeda-cert-expired").run().errorCode == .certificateExpired)
        let untrusted = try outcome(Self.eccCase) { $0.set("trustAnchors", to: [TPMTestCertificates.pem(TPMTestCertificates.valid)]) }
        #expect(untrusted.errorCode == .certificateChainUntrusted)
    }

    @Test func aikCertificateMeetingEveryRequirementPasses() throws {
        try TPMCertificateRequirements.check(try TPMTestCertificates.certificate(TPMTestCertificates.valid))
    }

    @Test(arguments: [
        (TPMTestCertificates.versionOne, WebAuthnError.Code.aikCertificateVersion),
        (TPMTestCertificates.subjectNotEmpty, .aikCertificateSubject),
        (TPMTestCertificates.withoutSubjectAlternativeName, .aikCertificateSubjectAlternativeName),
        (TPMTestCertificates.subjectAlternativeNameNotCritical, .aikCertificateSubjectAlternativeName),
        (TPMTestCertificates.subjectAlternativeNameWithoutModel, .aikCertificateSubjectAlternativeName),
        (TPMTestCertificates.withoutExtendedKeyUsage, .aikCertificateExtendedKeyUsage),
        (TPMTestCertificates.certificateAuthority, .aikCertificateBasicConstraints),
    ])
    func aikCertificateRequirementsRefuse(certificate: String, code: WebAuthnError.Code) throws {
        let parsed = try TPMTestCertificates.certificate(certificate)
        #expect(throws: WebAuthnError.self) { try TPMCertificateRequirements.check(parsed) }
        do {
            try TPMCertificateRequirements.check(parsed)
        } catch {
            #expect(error.code == code, "\(error.reason)")
        }
    }

    @Test(arguments: [eccCase, rsaCase])
    func truncatedOrExtendedStructuresThrow(id: String) throws {
        let statement = try EditableVectorCase(id).statement()
        let publicArea = try #require(statement["pubArea"]?.bytesValue)
        let certificateInfo = try #require(statement["certInfo"]?.bytesValue)
        _ = try TPMTPublic(bytes: publicArea)
        _ = try TPMSAttest(bytes: certificateInfo)
        for length in 0..<publicArea.count {
            #expect(throws: WebAuthnError.self) { try TPMTPublic(bytes: Array(publicArea.prefix(length))) }
        }
        for length in 0..<certificateInfo.count {
            #expect(throws: WebAuthnError.self) { try TPMSAttest(bytes: Array(certificateInfo.prefix(length))) }
        }
        #expect(throws: WebAuthnError.self) { try TPMTPublic(bytes: publicArea + [0]) }
        #expect(throws: WebAuthnError.self) { try TPMSAttest(bytes: certificateInfo + [0]) }
    }

    @Test func truncatedStatementsAreRefusedThroughTheCeremony() throws {
        for member in ["pubArea", "certInfo"] {
            let result = try outcome(Self.eccCase) { try $0.editStatementBytes(member) { bytes in bytes.removeLast(3) } }
            #expect(result.errorCode == .tpmStructureMalformed)
        }
    }

    @Test func schemeDetailsAreReadTheTPMWayOrBare() throws {
        let statement = try EditableVectorCase(Self.rsaCase).statement()
        let publicArea = try #require(statement["pubArea"]?.bytesValue)
        let scheme = parametersOffset(publicArea) + 2
        let original = try TPMTPublic(bytes: publicArea)
        // TPM_ALG_RSASSA followed by its hash (TPM_ALG_SHA256), as [TPMv2-Part2] encodes it.
        var withDetails = publicArea
        withDetails.replaceSubrange(scheme..<scheme + 2, with: [0x00, 0x14, 0x00, 0x0B])
        #expect(try TPMTPublic(bytes: withDetails).parameters == original.parameters)
        // TPM_ALG_RSASSA without details, as java-webauthn-server's test authenticator writes it.
        var bare = publicArea
        bare.replaceSubrange(scheme..<scheme + 2, with: [0x00, 0x14])
        #expect(try TPMTPublic(bytes: bare).parameters == original.parameters)
        #expect(original.parameters == .rsa(keyBits: 2048, exponent: 0))
    }

    @Test func clockInfoIsNotJudged() throws {
        let statement = try EditableVectorCase(Self.eccCase).statement()
        let attest = try TPMSAttest(bytes: try #require(statement["certInfo"]?.bytesValue))
        #expect(attest.safe == 0x33)
    }
}
