import CBOR
import TestSupport
import Testing
import WebAuthnCore

@Suite("§8.7 none attestation")
struct NoneAttestationTests {
    typealias Fixture = CeremonyFixture

    @Test func emptyStatementIsNoneAttestation() throws {
        let result = try Fixture.register(try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge))
        #expect(result.attestation.format == .none)
        #expect(result.attestation.type == .none)
        #expect(result.attestation.trustPath.isEmpty)
        #expect(result.attestation.trustEvaluation == .notApplicable)
    }

    @Test(arguments: [
        [CBORMapEntry(key: .text("sig"), value: .bytes([1]))], [CBORMapEntry(key: .text("alg"), value: CBORValue(-7))],
        [CBORMapEntry(key: CBORValue(1), value: .null)],
    ])
    func nonEmptyStatementFails(statement: [CBORMapEntry]) throws {
        let options = RegistrationOptions(mutation: ResponseMutation(attestationStatement: { $0 = statement }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .malformedStatement)
    }

    @Test func packedStatementLabelledNoneFails() throws {
        let options = RegistrationOptions(attestation: .packedSelf, format: "none")
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .malformedStatement)
    }
}
