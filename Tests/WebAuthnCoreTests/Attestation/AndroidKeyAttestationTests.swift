import CBOR
import CryptoCore
import Foundation
import Testing
import WebAuthnVectors

@testable import WebAuthnCore

/// The `android-key` format (WebAuthn §8.4): each check refuses a vector, a KeyDescription or a certificate that
/// breaks exactly what it guards.
@Suite struct AndroidKeyAttestationTests {
    /// A Pixel 8a registration chained to Google's root.
    static let deviceCase = "py_webauthn/android-key-pixel-8a"
    /// The spec's vector: empty authorization lists.
    static let specCase = "w3c-l3/android-key-es256/registration"

    private func outcome(_ id: String, _ edit: (inout EditableVectorCase) throws -> Void) throws -> VerificationOutcome {
        var editable = try EditableVectorCase(id)
        try edit(&editable)
        return try editable.run()
    }

    @Test(arguments: [deviceCase, specCase, "simplewebauthn/android-key-conformance-2020"])
    func unmodifiedVectorsVerify(id: String) throws {
        let result = try outcome(id) { _ in }
        #expect(result.ok, "\(result.error ?? "") \(result.reason ?? "")")
        #expect(result.fmt == "android-key")
        #expect(result.attestationType == "basic")
    }

    @Test func statementSyntaxIsChecked() throws {
        #expect(try outcome(Self.deviceCase) { try $0.setStatementMember("ver", to: .text("1")) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.deviceCase) { try $0.setStatementMember("x5c", to: nil) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.deviceCase) { try $0.setStatementMember("sig", to: nil) }.errorCode == .malformedStatement)
    }

    @Test(arguments: [deviceCase, specCase])
    func signatureMustVerify(id: String) throws {
        let result = try outcome(id) { try $0.editStatementBytes("sig") { bytes in bytes[bytes.count - 1] ^= 0x01 } }
        #expect(result.errorCode == .attestationInvalidSignature)
    }

    @Test func firstCertificateMustHoldTheCredentialKey() throws {
        let otherChain = try EditableVectorCase(Self.specCase).statement()["x5c"]
        let result = try outcome(Self.deviceCase) { try $0.setStatementMember("x5c", to: otherChain) }
        #expect(result.errorCode == .publicKeyMismatch)
    }

    @Test(arguments: [deviceCase, specCase])
    func attestationChallengeMustBeClientDataHash(id: String) throws {
        let result = try outcome(id) { try $0.changeClientDataHash() }
        #expect(result.errorCode == .androidKeyChallengeMismatch)
    }

    @Test func chainMustReachTheTrustAnchor() throws {
        let result = try outcome(Self.deviceCase) { $0.set("trustAnchors", to: [TPMTestCertificates.pem(TPMTestCertificates.valid)]) }
        #expect(result.errorCode == .certificateChainUntrusted)
    }

    @Test func certificateWithoutTheExtensionIsRefused() throws {
        let certificate = try TPMTestCertificates.certificate(TPMTestCertificates.valid)
        #expect(throws: WebAuthnError(.androidKeyDescriptionMissing, "credential certificate has no Android key attestation extension")) {
            try AndroidKeyDescription(certificate: certificate)
        }
    }

    // MARK: KeyDescription DER

    private static func element(_ identifier: [UInt8], _ contents: [UInt8]) -> [UInt8] {
        let length: [UInt8] = contents.count < 128 ? [UInt8(contents.count)] : [0x81, UInt8(contents.count)]
        return identifier + length + contents
    }

    private static func keyDescription(challenge: [UInt8] = Array(repeating: 7, count: 32), software: [UInt8], tee: [UInt8]) -> [UInt8] {
        element(
            [0x30],
            element([0x02], [0x01, 0x2C]) + element([0x0A], [0]) + element([0x02], [0]) + element([0x0A], [0])
                + element([0x04], challenge) + element([0x04], []) + element([0x30], software) + element([0x30], tee)
        )
    }

    /// purpose [1] EXPLICIT SET OF INTEGER.
    private static func purposes(_ values: [UInt8]) -> [UInt8] {
        element([0xA1], element([0x31], values.flatMap { element([0x02], [$0]) }))
    }

    /// origin [702] EXPLICIT INTEGER: a high tag number in the long form (0xBF 0x85 0x3E).
    private static func origin(_ value: UInt8) -> [UInt8] {
        element([0xBF, 0x85, 0x3E], element([0x02], [value]))
    }

    /// allApplications [600] EXPLICIT NULL (0xBF 0x84 0x58).
    private static let allApplications = element([0xBF, 0x84, 0x58], element([0x05], []))

    @Test func highTagNumbersAreRead() throws {
        let description = try AndroidKeyDescription(
            der: Self.keyDescription(
                software: Self.allApplications,
                tee: Self.purposes([2, 3]) + Self.origin(0)
            )
        )
        #expect(description.attestationChallenge == Array(repeating: 7, count: 32))
        #expect(description.softwareEnforced == .init(purposes: nil, origin: nil, hasAllApplications: true))
        #expect(description.teeEnforced == .init(purposes: [2, 3], origin: 0, hasAllApplications: false))
    }

    @Test(arguments: [
        [0x04, 0x00],
        element([0x30], element([0x02], [1])),
        keyDescription(challenge: [], software: [], tee: []).replacingFirst(0x04, after: 12, with: 0x02),
        keyDescription(software: element([0xA1], element([0x02], [2])), tee: []),
        keyDescription(software: element([0xBF, 0x85, 0x3E], element([0x04], [0])), tee: []),
    ])
    func malformedKeyDescriptionsAreRefused(der: [UInt8]) {
        #expect {
            try AndroidKeyDescription(der: der)
        } throws: { error in
            (error as? WebAuthnError)?.code == .androidKeyDescriptionMalformed
        }
    }

    // MARK: Authorization lists

    private func list(purposes: [Int64]? = [2], origin: Int64? = 0, allApplications: Bool = false) -> AndroidKeyDescription.AuthorizationList {
        .init(purposes: purposes, origin: origin, hasAllApplications: allApplications)
    }

    private func code(
        software: AndroidKeyDescription.AuthorizationList,
        tee: AndroidKeyDescription.AuthorizationList,
        acceptingSoftwareEnforced: Bool = true
    ) -> WebAuthnError.Code? {
        let description = AndroidKeyDescription(attestationChallenge: [], softwareEnforced: software, teeEnforced: tee)
        do {
            try AndroidKeyAttestation.checkAuthorizations(description, acceptingSoftwareEnforced: acceptingSoftwareEnforced)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func allApplicationsMustBeAbsentFromBothLists() {
        #expect(code(software: list(allApplications: true), tee: list()) == .androidKeyAllApplications)
        #expect(code(software: list(), tee: list(allApplications: true)) == .androidKeyAllApplications)
        #expect(code(software: list(allApplications: true), tee: list(), acceptingSoftwareEnforced: false) == .androidKeyAllApplications)
    }

    @Test func originMustBeGenerated() {
        #expect(code(software: list(origin: nil), tee: list(origin: 2)) == .androidKeyOriginNotGenerated)
        #expect(code(software: list(origin: 2), tee: list(origin: nil)) == .androidKeyOriginNotGenerated)
        // TEE-only policy: the software list is not consulted.
        #expect(code(software: list(origin: 2), tee: list(origin: 0), acceptingSoftwareEnforced: false) == nil)
    }

    @Test func purposeMustContainSign() {
        #expect(code(software: list(purposes: nil), tee: list(purposes: [3])) == .androidKeyPurposeNotSign)
        #expect(code(software: list(purposes: [3]), tee: list(purposes: [])) == .androidKeyPurposeNotSign)
        // Union policy: SIGN in the software list is enough; TEE-only policy: it is not.
        #expect(code(software: list(purposes: [2]), tee: list(purposes: [3])) == nil)
        #expect(
            code(software: list(purposes: [2]), tee: list(purposes: [3]), acceptingSoftwareEnforced: false) == .androidKeyPurposeNotSign
        )
    }

    @Test func absentFieldsAreNotViolations() {
        let empty = list(purposes: nil, origin: nil)
        #expect(code(software: empty, tee: empty) == nil)
        #expect(code(software: empty, tee: list()) == nil)
    }
}

private extension Array where Element == UInt8 {
    /// A copy with the first `byte` found at or after `offset` replaced.
    func replacingFirst(_ byte: UInt8, after offset: Int, with replacement: UInt8) -> [UInt8] {
        var copy = self
        if let index = copy[offset...].firstIndex(of: byte) { copy[index] = replacement }
        return copy
    }
}
