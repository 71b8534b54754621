import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§8.8 Apple anonymous attestation")
struct AppleAttestationTests {
    typealias Fixture = CeremonyFixture

    static func setting(_ key: String, to value: CBORValue?) -> @Sendable (inout [CBORMapEntry]) -> Void {
        { entries in
            entries.removeAll { $0.key == .text(key) }
            if let value { entries.append(CBORMapEntry(key: .text(key), value: value)) }
        }
    }

    /// The code an Apple registration of `credential` fails with when its credential certificate is replaced by one
    /// for `key` (the credential's own when nil) with `extensions` computed from the nonce the authenticator would sign.
    static func replacedCertificateFailure(
        _ credential: SoftwareCredential,
        key: PublicKey? = nil,
        extensions: ([UInt8]) -> [CertificateBuilder.Extension]
    ) throws -> WebAuthnError.Code? {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(attestation: .apple(certificates))
        let parts = try Fixture.authenticator.registrationParts(credential, challenge: Fixture.challenge, options: options)
        let nonce = DigestAlgorithm.sha256.hash(parts.authenticatorData + DigestAlgorithm.sha256.hash(parts.clientDataJSON))
        let replacement = try certificates.credentialCertificate(for: key ?? credential.publicKey, extensions: extensions(nonce))
        var replaced = options
        replaced.mutation.attestationStatement = setting("x5c", to: .array([.bytes(replacement.der), .bytes(certificates.intermediate.der)]))
        return try Fixture.registrationFailure(credential, options: replaced)
    }

    @Test(arguments: SoftwareCredential.supportedAlgorithms)
    func credentialCertificateWithTheNonceVerifies(algorithm: COSEAlgorithm) throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(algorithm),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .apple(certificates))
        )
        let result = try Fixture.register(
            response,
            expectations: RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: [certificates.root])
        )
        #expect(result.attestation.format == .apple)
        #expect(result.attestation.type == .anonCA)
        #expect(result.attestation.trustEvaluation == .trusted(anchorFingerprint: certificates.root.sha256Fingerprint))
    }

    @Test func informationalAlgIsIgnored() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(
            attestation: .apple(certificates),
            mutation: ResponseMutation(attestationStatement: Self.setting("alg", to: CBORValue(-7)))
        )
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == nil)
    }

    @Test func unexpectedMemberFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(
            attestation: .apple(certificates),
            mutation: ResponseMutation(attestationStatement: Self.setting("sig", to: .bytes([1])))
        )
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .malformedStatement)
    }

    @Test func missingX5cFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(
            attestation: .apple(certificates),
            mutation: ResponseMutation(attestationStatement: Self.setting("x5c", to: nil))
        )
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .malformedStatement)
    }

    @Test func authenticatorDataChangedAfterCertificationFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let options = RegistrationOptions(attestation: .apple(certificates), mutation: ResponseMutation(signedAuthenticatorData: { $0[36] ^= 0x01 }))
        #expect(try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: options) == .appleNonceMismatch)
    }

    @Test func missingNonceExtensionFails() throws {
        #expect(try Self.replacedCertificateFailure(try SoftwareCredential.generate(.es256)) { _ in [] } == .appleNonceMissing)
    }

    @Test func nonceOfAnotherResponseFails() throws {
        let failure = try Self.replacedCertificateFailure(try SoftwareCredential.generate(.es256)) { nonce in
            [AttestationCertificates.appleNonceExtension(nonce.map { $0 ^ 0x5A })]
        }
        #expect(failure == .appleNonceMismatch)
    }

    @Test(
        arguments: [[0x04, 0x20], [0x30, 0x22, 0x04, 0x20], [0x30, 0x24, 0xA2, 0x22, 0x04, 0x20], [0x30, 0x24, 0xA1, 0x22, 0x0C, 0x20]] as [[UInt8]]
    )
    func malformedNonceExtensionFails(prefix: [UInt8]) throws {
        let failure = try Self.replacedCertificateFailure(try SoftwareCredential.generate(.es256)) { nonce in
            [CertificateBuilder.Extension(oid: "1.2.840.113635.100.8.2", critical: false, value: prefix + nonce)]
        }
        #expect(failure == .appleNonceMismatch)
    }

    @Test func certificateForAnotherKeyFails() throws {
        let other = try SoftwareCredential.generate(.es256)
        let failure = try Self.replacedCertificateFailure(try SoftwareCredential.generate(.es256), key: other.publicKey) { nonce in
            [AttestationCertificates.appleNonceExtension(nonce)]
        }
        #expect(failure == .publicKeyMismatch)
    }

    @Test func certificateChainUntrustedByTheConfiguredAnchorsFails() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .apple(certificates))
        )
        let stranger = try AttestationCertificates.make(at: Fixture.now)
        let expectations = RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: [stranger.root])
        #expect(Fixture.registrationFailure(response, expectations: expectations) == .certificateChainUntrusted)
    }
}
