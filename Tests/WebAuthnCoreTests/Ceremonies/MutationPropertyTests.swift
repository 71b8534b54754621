import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

/// Property tests: seeded pseudo-random single-byte mutations of valid responses. Every outcome must be a
/// verdict (a result or a `WebAuthnError`), the same verdict every time, and never "ok" when a signed byte changed.
@Suite("property: single-byte mutations of valid responses")
struct MutationPropertyTests {
    typealias Fixture = CeremonyFixture
    static let rounds = 500

    /// "ok" or the error code; anything else thrown is recorded as an issue by `failureCode`.
    static func verdict(_ body: () throws -> Void) -> String {
        Fixture.failureCode(body)?.rawValue ?? "ok"
    }

    /// One seeded mutation: an offset into `count` bytes and a non-zero XOR mask.
    static func mutation(count: Int, using generator: inout SeededGenerator) -> (offset: Int, mask: UInt8) {
        (Int.random(in: 0..<count, using: &generator), UInt8.random(in: 1...255, using: &generator))
    }

    @Test func mutatedAttestationObjectsAreRejectedWhereSigned() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let parts = try Fixture.authenticator.registrationParts(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packedSelf)
        )
        #expect(Self.verdict { _ = try Fixture.register(parts.response) } == "ok")
        let object = parts.attestationObject
        // authData is the attestation object's last member, so its contents are its last bytes.
        let signed = (object.count - parts.authenticatorData.count)..<object.count
        #expect(Array(object[signed]) == parts.authenticatorData)
        var generator = SeededGenerator(seed: 0x5EED_A77E)
        var verdicts: [String: Int] = [:]
        for round in 0..<Self.rounds {
            let (offset, mask) = Self.mutation(count: object.count, using: &generator)
            var mutated = object
            mutated[offset] ^= mask
            var response = parts.response
            response.response.attestationObject = Base64URL.encode(mutated)
            let first = Self.verdict { _ = try Fixture.register(response) }
            let second = Self.verdict { _ = try Fixture.register(response) }
            #expect(first == second, "round \(round): offset \(offset) mask \(mask) gave \(first) then \(second)")
            if signed.contains(offset) {
                #expect(first != "ok", "round \(round): a change to signed authenticator data at offset \(offset) verified")
            }
            verdicts[first, default: 0] += 1
        }
        #expect(verdicts[WebAuthnError.Code.attestationInvalidSignature.rawValue, default: 0] > 0)
    }

    @Test func mutatedClientDataIsAlwaysRejected() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let parts = try Fixture.authenticator.registrationParts(
            credential,
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packedSelf)
        )
        var generator = SeededGenerator(seed: 0xC11E_D474)
        for round in 0..<Self.rounds {
            let (offset, mask) = Self.mutation(count: parts.clientDataJSON.count, using: &generator)
            var mutated = parts.clientDataJSON
            mutated[offset] ^= mask
            var response = parts.response
            response.response.clientDataJSON = Base64URL.encode(mutated)
            let first = Self.verdict { _ = try Fixture.register(response) }
            #expect(first == Self.verdict { _ = try Fixture.register(response) }, "round \(round)")
            #expect(first != "ok", "round \(round): offset \(offset) mask \(mask) gave \(first)")
        }
    }

    @Test func mutationsInsideIgnoredExtensionValuesOfUnsignedDataStillVerify() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let filler = [UInt8](repeating: 0xAB, count: 24)
        let options = RegistrationOptions(
            flags: [.userPresent, .userVerified, .attestedCredentialData, .extensionData],
            extensions: .map([CBORMapEntry(key: .text("ignored"), value: .bytes(filler))])
        )
        let parts = try Fixture.authenticator.registrationParts(credential, challenge: Fixture.challenge, options: options)
        let object = parts.attestationObject
        // With `none` attestation nothing signs authData; the extension value is its last 24 bytes, and passkeyd ignores it.
        let ignored = (object.count - filler.count)..<object.count
        #expect(Array(object[ignored]) == filler)
        var generator = SeededGenerator(seed: 0x16_0BED)
        for round in 0..<Self.rounds {
            let offset = Int.random(in: ignored, using: &generator)
            var mutated = object
            mutated[offset] ^= UInt8.random(in: 1...255, using: &generator)
            var response = parts.response
            response.response.attestationObject = Base64URL.encode(mutated)
            #expect(Self.verdict { _ = try Fixture.register(response) } == "ok", "round \(round): offset \(offset)")
        }
    }

    @Test(arguments: [COSEAlgorithm.es256, .eddsa, .rs256, .ps256])
    func mutatedAssertionsAreAlwaysRejected(algorithm: COSEAlgorithm) throws {
        let credential = try SoftwareCredential.generate(algorithm)
        let parts = try Fixture.authenticator.assertionParts(credential, challenge: Fixture.challenge)
        let expectations = AuthenticationExpectations(challenge: Fixture.challenge, credential: try credential.storedCredential())
        #expect(Self.verdict { _ = try Fixture.authenticate(parts.response, expectations: expectations) } == "ok")
        var generator = SeededGenerator(seed: 0xA55E_0000 ^ UInt64(bitPattern: Int64(algorithm.rawValue)))
        var verdicts: [String: Int] = [:]
        for round in 0..<Self.rounds {
            var response = parts.response
            let mutatesSignature = Bool.random(using: &generator)
            var bytes = mutatesSignature ? parts.signature : parts.authenticatorData
            let (offset, mask) = Self.mutation(count: bytes.count, using: &generator)
            bytes[offset] ^= mask
            if mutatesSignature {
                response.response.signature = Base64URL.encode(bytes)
            } else {
                response.response.authenticatorData = Base64URL.encode(bytes)
            }
            let first = Self.verdict { _ = try Fixture.authenticate(response, expectations: expectations) }
            #expect(first == Self.verdict { _ = try Fixture.authenticate(response, expectations: expectations) }, "round \(round)")
            #expect(
                first != "ok",
                "round \(round): \(mutatesSignature ? "signature" : "authenticatorData") offset \(offset) mask \(mask) gave \(first)"
            )
            verdicts[first, default: 0] += 1
        }
        #expect(verdicts[WebAuthnError.Code.assertionInvalidSignature.rawValue, default: 0] > Self.rounds / 2)
    }
}
