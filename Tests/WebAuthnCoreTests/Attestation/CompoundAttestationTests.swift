import CBOR
import Testing
import WebAuthnCore
import WebAuthnVectors

/// The `compound` format (WebAuthn L3 §8.9), built from the spec's packed vector and a `none` statement about the
/// same authenticator data.
@Suite struct CompoundAttestationTests {
    static let packedCase = "w3c-l3/packed-es256/registration"

    /// The packed vector re-encoded as a compound statement of the given members.
    private func compound(_ members: (CBORValue) -> [CBORValue], format: String = "compound") throws -> VerificationOutcome {
        var editable = try EditableVectorCase(Self.packedCase)
        let packed = try editable.statement()
        try editable.setAttestationObjectMember("fmt", to: .text(format))
        try editable.setAttestationObjectMember("attStmt", to: .array(members(packed)))
        return try editable.run()
    }

    private func member(_ format: String, _ statement: CBORValue) -> CBORValue {
        .map([CBORMapEntry(key: .text("fmt"), value: .text(format)), CBORMapEntry(key: .text("attStmt"), value: statement)])
    }

    private static let emptyMap = CBORValue.map([])

    @Test func everyMemberVerifiesAndTheFirstIsReported() throws {
        let packedFirst = try compound { [member("packed", $0), member("none", Self.emptyMap)] }
        #expect(packedFirst.ok, "\(packedFirst.error ?? "") \(packedFirst.reason ?? "")")
        #expect(packedFirst.fmt == "compound")
        #expect(packedFirst.attestationType == "basic")
        #expect(packedFirst.trustPath?.hasPrefix("trusted:") == true)
        let noneFirst = try compound { [member("none", Self.emptyMap), member("packed", $0)] }
        #expect(noneFirst.ok)
        #expect(noneFirst.attestationType == "none")
        #expect(noneFirst.trustPath == "notApplicable")
    }

    @Test func atLeastTwoStatementsAreRequired() throws {
        #expect(try compound { [member("packed", $0)] }.errorCode == .compoundTooFewStatements)
        #expect(try compound { _ in [] }.errorCode == .compoundTooFewStatements)
    }

    @Test func compoundStatementsDoNotNest() throws {
        let nested = try compound { packed in
            [member("packed", packed), member("compound", .array([member("packed", packed), member("none", Self.emptyMap)]))]
        }
        #expect(nested.errorCode == .compoundNested)
    }

    @Test func oneBadMemberFailsTheWhole() throws {
        let badSignature = try compound { packed in
            var signature = packed["sig"]?.bytesValue ?? []
            signature[signature.count - 1] ^= 0x01
            return [member("none", Self.emptyMap), member("packed", packed.setting("sig", to: .bytes(signature)))]
        }
        #expect(badSignature.errorCode == .attestationInvalidSignature)
        let badNone = try compound { [member("packed", $0), member("none", .map([CBORMapEntry(key: .text("x"), value: .null)]))] }
        #expect(badNone.errorCode == .malformedStatement)
        let unknownFormat = try compound { [member("packed", $0), member("fizzbuzz", Self.emptyMap)] }
        #expect(unknownFormat.errorCode == .unsupportedFormat)
    }

    @Test func membersMustBeFormatStatementPairs() throws {
        #expect(try compound { [member("packed", $0), .text("none")] }.errorCode == .compoundMalformed)
        #expect(try compound { [member("packed", $0), member("none", .array([]))] }.errorCode == .compoundMalformed)
        #expect(
            try compound { [member("packed", $0), .map([CBORMapEntry(key: .text("attStmt"), value: Self.emptyMap)])] }.errorCode
                == .compoundMalformed
        )
        let extraMember = CBORValue.map([
            CBORMapEntry(key: .text("fmt"), value: .text("none")), CBORMapEntry(key: .text("attStmt"), value: Self.emptyMap),
            CBORMapEntry(key: .text("extra"), value: .null),
        ])
        #expect(try compound { [member("packed", $0), extraMember] }.errorCode == .compoundMalformed)
    }

    @Test func onlyCompoundMayCarryAnArray() throws {
        let packedArray = try compound({ [member("packed", $0), member("none", Self.emptyMap)] }, format: "packed")
        #expect(packedArray.errorCode == .missingStatement)
        var editable = try EditableVectorCase(Self.packedCase)
        try editable.setAttestationObjectMember("fmt", to: .text("compound"))
        #expect(try editable.run().errorCode == .compoundMalformed)
    }
}
