import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§6.5.4 attestation object")
struct AttestationObjectTests {
    typealias Fixture = CeremonyFixture

    /// A valid authenticator data for building attestation objects by hand.
    static func authenticatorData() throws -> [UInt8] {
        try Fixture.authenticator.registrationParts(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge).authenticatorData
    }

    static func code(_ bytes: [UInt8]) -> WebAuthnError.Code? {
        Fixture.failureCode { _ = try AttestationObject(bytes: bytes) }
    }

    static func object(_ entries: [(String, CBORValue)]) -> [UInt8] {
        CBOREncoder.encode(.map(entries.map { CBORMapEntry(key: .text($0.0), value: $0.1) }))
    }

    @Test func membersAreRead() throws {
        let authenticatorData = try Self.authenticatorData()
        let object = try AttestationObject(
            bytes: Self.object([("fmt", .text("none")), ("attStmt", .map([])), ("authData", .bytes(authenticatorData))])
        )
        #expect(object.format == "none")
        #expect(object.statement == .map([]))
        #expect(object.authenticatorData.bytes == authenticatorData)
    }

    @Test func memberOrderDoesNotMatter() throws {
        let authenticatorData = try Self.authenticatorData()
        #expect(Self.code(Self.object([("authData", .bytes(authenticatorData)), ("attStmt", .map([])), ("fmt", .text("none"))])) == nil)
    }

    @Test(arguments: [[], [0xFF], [0xA3], [0xA0, 0xA0]] as [[UInt8]])
    func bytesThatAreNotOneCBORItemFail(bytes: [UInt8]) {
        #expect(Self.code(bytes) == .attestationObjectMalformed)
    }

    @Test func aCBORItemThatIsNotAMapFails() {
        #expect(Self.code(CBOREncoder.encode(.array([.text("none")]))) == .attestationObjectMalformed)
    }

    @Test(arguments: [CBORValue?.none, CBORValue(1), .bytes(Array("none".utf8))])
    func formatMustBeText(format: CBORValue?) throws {
        var entries: [(String, CBORValue)] = [("attStmt", .map([])), ("authData", .bytes(try Self.authenticatorData()))]
        if let format { entries.append(("fmt", format)) }
        #expect(Self.code(Self.object(entries)) == .missingFormat)
    }

    @Test(arguments: [CBORValue?.none, .array([]), .null])
    func statementMustBeAMap(statement: CBORValue?) throws {
        var entries: [(String, CBORValue)] = [("fmt", .text("none")), ("authData", .bytes(try Self.authenticatorData()))]
        if let statement { entries.append(("attStmt", statement)) }
        #expect(Self.code(Self.object(entries)) == .missingStatement)
    }

    @Test(arguments: [CBORValue?.none, .text("AAAA"), .array([])])
    func authenticatorDataMustBeAByteString(authenticatorData: CBORValue?) {
        var entries: [(String, CBORValue)] = [("fmt", .text("none")), ("attStmt", .map([]))]
        if let authenticatorData { entries.append(("authData", authenticatorData)) }
        #expect(Self.code(Self.object(entries)) == .missingAuthenticatorData)
    }

    @Test func extraMembersFail() throws {
        let entries: [(String, CBORValue)] = [
            ("fmt", .text("none")), ("attStmt", .map([])), ("authData", .bytes(try Self.authenticatorData())), ("epAtt", .boolean(true)),
        ]
        #expect(Self.code(Self.object(entries)) == .attestationObjectMalformed)
    }

    @Test func duplicateMembersFail() throws {
        let authenticatorData = try Self.authenticatorData()
        let entries: [(String, CBORValue)] = [
            ("fmt", .text("none")), ("attStmt", .map([])), ("authData", .bytes(authenticatorData)), ("fmt", .text("none")),
        ]
        #expect(Self.code(Self.object(entries)) == .attestationObjectMalformed)
    }

    @Test func authenticatorDataErrorsKeepTheirCode() {
        #expect(
            Self.code(Self.object([("fmt", .text("none")), ("attStmt", .map([])), ("authData", .bytes([0x00]))])) == .authenticatorDataTooShort
        )
    }

    @Test func bytesAfterTheObjectFailTheRegistration() throws {
        let options = RegistrationOptions(mutation: ResponseMutation(attestationObject: { $0.append(0x00) }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .attestationObjectMalformed)
    }
}
