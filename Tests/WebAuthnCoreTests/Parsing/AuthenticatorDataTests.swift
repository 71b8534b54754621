import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§6.1 authenticator data")
struct AuthenticatorDataTests {
    static let rpIDHash = DigestAlgorithm.sha256.hash(Array("example.com".utf8))

    /// rpIdHash, flags and a big-endian counter: the fixed 37 bytes.
    static func header(flags: AuthenticatorFlags, signCount: UInt32 = 0x0102_0304) -> [UInt8] {
        rpIDHash + [flags.rawValue, UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF), UInt8(signCount & 0xFF)]
    }

    /// AAGUID, credential ID length and ID, and `key`.
    static func attestedCredentialData(id: [UInt8] = [0xC1, 0xC2, 0xC3, 0xC4], key: [UInt8]) -> [UInt8] {
        RegistrationOptions.testAAGUID + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id + key
    }

    static func code(_ bytes: [UInt8]) -> WebAuthnError.Code? {
        CeremonyFixture.failureCode { _ = try AuthenticatorData(bytes: bytes) }
    }

    @Test func fixedFieldsAreRead() throws {
        let data = try AuthenticatorData(bytes: Self.header(flags: [.userPresent, .backupEligible, .backupState]))
        #expect(data.rpIDHash == Self.rpIDHash)
        #expect(data.flags == [.userPresent, .backupEligible, .backupState])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil)
        #expect(data.extensions == nil)
    }

    @Test(arguments: [0, 1, 36])
    func fewerThan37BytesFail(length: Int) {
        #expect(Self.code(Array(Self.header(flags: [.userPresent]).prefix(length))) == .authenticatorDataTooShort)
    }

    @Test func attestedCredentialDataIsRead() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + Self.attestedCredentialData(key: try credential.coseKey())
        let attested = try #require(try AuthenticatorData(bytes: bytes).attestedCredentialData)
        #expect(attested.aaguid == RegistrationOptions.testAAGUID)
        #expect(attested.aaguidString == "7a1b2c3d-4e5f-4081-92a3-b4c5d6e7f809")
        #expect(attested.credentialID == [0xC1, 0xC2, 0xC3, 0xC4])
        #expect(attested.credentialPublicKey.publicKey.matches(credential.publicKey))
    }

    @Test(arguments: [0, 17])
    func truncatedAttestedCredentialDataFails(following: Int) {
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + [UInt8](repeating: 0, count: following)
        #expect(Self.code(bytes) == .authenticatorDataTruncated)
    }

    @Test func credentialIDLongerThanTheRestFails() {
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + RegistrationOptions.testAAGUID + [0x00, 0x20] + [1, 2, 3]
        #expect(Self.code(bytes) == .authenticatorDataTruncated)
    }

    @Test(arguments: [[UInt8](), [0xFF], [0xA1, 0x01], [0x1C]])
    func malformedCredentialPublicKeyFails(key: [UInt8]) {
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + Self.attestedCredentialData(key: key)
        #expect(Self.code(bytes) == .malformedPublicKey)
    }

    @Test func invalidCOSEKeyFailsWithItsOwnCode() {
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + Self.attestedCredentialData(key: CBOREncoder.encode(.map([])))
        #expect(Self.code(bytes) == .unsupportedKeyType)
    }

    @Test func extensionsAreRead() throws {
        let extensions = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: CBORValue(1))])
        let data = try AuthenticatorData(bytes: Self.header(flags: [.userPresent, .extensionData]) + CBOREncoder.encode(extensions))
        #expect(data.extensions == extensions)
    }

    @Test func extensionsAfterAttestedCredentialDataAreRead() throws {
        let credential = try SoftwareCredential.generate(.eddsa)
        let extensions = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: CBORValue(3))])
        let bytes =
            Self.header(flags: [.userPresent, .attestedCredentialData, .extensionData])
            + Self.attestedCredentialData(key: try credential.coseKey()) + CBOREncoder.encode(extensions)
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.extensions == extensions)
        #expect(data.attestedCredentialData != nil)
    }

    @Test func extensionFlagWithoutExtensionsFails() {
        #expect(Self.code(Self.header(flags: [.userPresent, .extensionData])) == .missingExtensions)
    }

    @Test(arguments: [[0x01], [0x80], [0xFF], [0xA1, 0x01]] as [[UInt8]])
    func extensionsThatAreNotAWellFormedMapFail(extensions: [UInt8]) {
        #expect(Self.code(Self.header(flags: [.userPresent, .extensionData]) + extensions) == .malformedExtensions)
    }

    @Test(arguments: [[0x00], [0xA0], [0xA0, 0xA0]] as [[UInt8]])
    func bytesNotAnnouncedByTheFlagsFail(trailing: [UInt8]) {
        let flags: AuthenticatorFlags = trailing.count == 2 ? [.userPresent, .extensionData] : [.userPresent]
        #expect(Self.code(Self.header(flags: flags) + trailing) == .authenticatorDataTrailingBytes)
    }

    @Test func bytesAfterTheCredentialPublicKeyFail() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let bytes = Self.header(flags: [.userPresent, .attestedCredentialData]) + Self.attestedCredentialData(key: try credential.coseKey()) + [0xF6]
        #expect(Self.code(bytes) == .authenticatorDataTrailingBytes)
    }
}
