import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§8.6 fido-u2f attestation")
struct FIDOU2FAttestationTests {
    typealias Fixture = CeremonyFixture

    static func failure(
        credential algorithm: COSEAlgorithm = .es256,
        leaf leafAlgorithm: COSEAlgorithm = .es256,
        mutation: ResponseMutation = ResponseMutation(),
        anchors: (AttestationCertificates) -> [X509Certificate] = { _ in [] }
    ) throws -> WebAuthnError.Code? {
        let certificates = try AttestationCertificates.make(at: Fixture.now, leafAlgorithm: leafAlgorithm)
        let options = RegistrationOptions(attestation: .fidoU2F(certificates), mutation: mutation)
        let expectations = RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: anchors(certificates))
        return try Fixture.registrationFailure(try SoftwareCredential.generate(algorithm), options: options, expectations: expectations)
    }

    @Test func es256CredentialWithAP256CertificateVerifies() throws {
        #expect(try Self.failure() == nil)
    }

    @Test func certificateEndingAtAConfiguredAnchorIsTrusted() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .fidoU2F(certificates))
        )
        let result = try Fixture.register(
            response,
            expectations: RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: [certificates.intermediate])
        )
        #expect(result.attestation.trustEvaluation == .trusted(anchorFingerprint: certificates.intermediate.sha256Fingerprint))
        let stranger = try AttestationCertificates.make(at: Fixture.now)
        #expect(try Self.failure(anchors: { _ in [stranger.root, stranger.intermediate] }) == .certificateChainUntrusted)
    }

    @Test func twoCertificatesFail() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let x5c = CBORValue.array(certificates.chain.map { .bytes($0.der) })
        let mutation = ResponseMutation(attestationStatement: { entries in
            entries = entries.map { $0.key == .text("x5c") ? CBORMapEntry(key: .text("x5c"), value: x5c) : $0 }
        })
        #expect(try Self.failure(mutation: mutation) == .malformedStatement)
    }

    @Test func missingCertificateFails() throws {
        let mutation = ResponseMutation(attestationStatement: { $0.removeAll { $0.key == .text("x5c") } })
        #expect(try Self.failure(mutation: mutation) == .malformedStatement)
    }

    @Test func missingSignatureFails() throws {
        let mutation = ResponseMutation(attestationStatement: { $0.removeAll { $0.key == .text("sig") } })
        #expect(try Self.failure(mutation: mutation) == .malformedStatement)
    }

    @Test func unexpectedMemberFails() throws {
        let mutation = ResponseMutation(attestationStatement: { $0.append(CBORMapEntry(key: .text("alg"), value: CBORValue(-7))) })
        #expect(try Self.failure(mutation: mutation) == .malformedStatement)
    }

    @Test(arguments: [COSEAlgorithm.es384, .rs256])
    func certificateKeyMustBeP256(leaf: COSEAlgorithm) throws {
        #expect(try Self.failure(leaf: leaf) == .invalidCertificate)
    }

    @Test(arguments: [COSEAlgorithm.es384, .es512, .eddsa, .rs256])
    func credentialMustBeES256(credential: COSEAlgorithm) throws {
        #expect(try Self.failure(credential: credential) == .attestationAlgorithmMismatch)
    }

    @Test func badSignatureFails() throws {
        #expect(try Self.failure(mutation: ResponseMutation(signature: { $0[$0.count - 1] ^= 0x80 })) == .attestationInvalidSignature)
    }

    @Test func signatureOverADifferentRPIDFails() throws {
        #expect(try Self.failure(mutation: ResponseMutation(signedAuthenticatorData: { $0[0] ^= 0x01 })) == .relyingPartyIDHashMismatch)
        let options = RegistrationOptions(relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("evil.example".utf8)))
        let relyingParty = Fixture.relyingParty(additionalIDs: ["evil.example"])
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        var u2f = options
        u2f.attestation = .fidoU2F(certificates)
        u2f.mutation.signedAuthenticatorData = { bytes in
            bytes.replaceSubrange(0..<32, with: DigestAlgorithm.sha256.hash(Array("example.com".utf8)))
        }
        #expect(
            try Fixture.registrationFailure(try SoftwareCredential.generate(.es256), options: u2f, relyingParty: relyingParty)
                == .attestationInvalidSignature
        )
    }

    @Test func expiredCertificateFailsWhenAnchorsAreConfigured() throws {
        let certificates = try AttestationCertificates.make(at: Fixture.now)
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .fidoU2F(certificates))
        )
        let later = Fixture.relyingParty(at: Fixture.now.addingTimeInterval(400 * Fixture.day))
        let expectations = RegistrationExpectations(challenge: Fixture.challenge, trustAnchors: [certificates.intermediate])
        #expect(Fixture.registrationFailure(response, expectations: expectations, relyingParty: later) == .certificateExpired)
    }
}
