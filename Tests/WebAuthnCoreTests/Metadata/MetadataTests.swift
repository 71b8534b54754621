import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

/// FIDO Metadata Service v3 BLOBs end to end (a BLOB and its root generated here) and the attestation policies.
@Suite("FIDO metadata and attestation policy")
struct MetadataTests {
    typealias Fixture = CeremonyFixture

    static let aaguidText = AttestedCredentialData.uuidString(RegistrationOptions.testAAGUID)
    static let nextUpdate = "2026-07-01"
    static let name = "Passkeyd Test Key"

    /// A metadata signer, an attestation chain, and a BLOB whose single entry lists the chain's root for the test AAGUID.
    struct Setup {
        let signer: MetadataBLOBSigner
        let certificates: AttestationCertificates
        let blobText: String

        func blob(policy: MetadataPolicy = MetadataPolicy(), at time: Date = Fixture.now) throws(WebAuthnError) -> MetadataBLOB {
            try MetadataBLOB(compactJWS: blobText, trustedRoots: [signer.root], at: time, policy: policy)
        }
    }

    static func setup(
        statuses: [(String, String)] = [("FIDO_CERTIFIED", "2024-01-01")],
        nextUpdate: String = MetadataTests.nextUpdate,
        entry: ((AttestationCertificates) -> [String: Any])? = nil
    ) throws -> Setup {
        let signer = try MetadataBLOBSigner.make(at: Fixture.now)
        let certificates = try AttestationCertificates.make(at: Fixture.now, aaguid: RegistrationOptions.testAAGUID)
        let listed =
            entry?(certificates)
            ?? MetadataBLOBSigner.entry(aaguid: aaguidText, description: name, roots: [certificates.root], statuses: statuses)
        let text = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: nextUpdate, entries: [listed]))
        return Setup(signer: signer, certificates: certificates, blobText: text)
    }

    static func packedResponse(
        _ certificates: AttestationCertificates,
        aaguid: [UInt8] = RegistrationOptions.testAAGUID
    ) throws -> RegistrationResponseJSON {
        try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .packed(certificates), aaguid: aaguid)
        )
    }

    static func expectations(
        _ policy: AttestationPolicy,
        metadata: MetadataBLOB? = nil,
        names: AuthenticatorNameList = AuthenticatorNameList()
    ) -> RegistrationExpectations {
        RegistrationExpectations(challenge: Fixture.challenge, attestationPolicy: policy, metadata: metadata, authenticatorNames: names)
    }

    static func blobFailure(_ body: () throws -> MetadataBLOB) -> WebAuthnError.Code? {
        Fixture.failureCode { _ = try body() }
    }

    // MARK: the BLOB

    @Test func blobIsParsedAndIndexed() throws {
        let setup = try Self.setup()
        let blob = try setup.blob()
        #expect(blob.number == 42)
        #expect(blob.legalHeader.hasPrefix("Test metadata"))
        #expect(blob.nextUpdate == ISO8601DateFormatter().date(from: "2026-07-01T00:00:00Z"))
        let entry = try #require(blob.entry(aaguid: RegistrationOptions.testAAGUID, certificates: []))
        #expect(entry.statement?.description == Self.name)
        #expect(entry.statement?.attestationRootCertificates.map(\.der) == [setup.certificates.root.der])
        #expect(entry.latestStatus == .fidoCertified)
        #expect(blob.entry(aaguid: [UInt8](repeating: 0x11, count: 16), certificates: []) == nil)
    }

    @Test func registrationWithVerifiedPolicyAndMetadataIsTrustedAndNamed() throws {
        let setup = try Self.setup()
        let result = try Fixture.register(
            try Self.packedResponse(setup.certificates),
            expectations: Self.expectations(.verified, metadata: try setup.blob())
        )
        #expect(result.attestation.trustEvaluation == .trusted(anchorFingerprint: setup.certificates.root.sha256Fingerprint))
        #expect(result.attestation.type == .attCA)
        #expect(result.authenticatorName == Self.name)
        #expect(result.aaguidString == Self.aaguidText)
    }

    @Test func verifiedPolicyWithoutMetadataIsNotTrusted() throws {
        let setup = try Self.setup()
        #expect(
            Fixture.registrationFailure(try Self.packedResponse(setup.certificates), expectations: Self.expectations(.verified))
                == .notTrusted
        )
    }

    @Test func verifiedPolicyWithOperatorAnchorIsTrusted() throws {
        let setup = try Self.setup()
        var expectations = Self.expectations(.verified)
        expectations.trustAnchors = [setup.certificates.root]
        let result = try Fixture.register(try Self.packedResponse(setup.certificates), expectations: expectations)
        #expect(result.attestation.trustEvaluation == .trusted(anchorFingerprint: setup.certificates.root.sha256Fingerprint))
        #expect(result.authenticatorName == nil)
    }

    @Test func metadataRootsOfAnotherAuthenticatorDoNotCount() throws {
        let setup = try Self.setup { certificates in
            MetadataBLOBSigner.entry(aaguid: "00112233-4455-6677-8899-aabbccddeeff", description: "Other", roots: [certificates.root])
        }
        let response = try Self.packedResponse(setup.certificates)
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.verified, metadata: try setup.blob())) == .notTrusted
        )
    }

    @Test func chainNotEndingAtTheListedRootFails() throws {
        let setup = try Self.setup()
        let otherChain = try AttestationCertificates.make(at: Fixture.now, aaguid: RegistrationOptions.testAAGUID)
        let response = try Self.packedResponse(otherChain)
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.verified, metadata: try setup.blob()))
                == .certificateChainUntrusted
        )
    }

    @Test(arguments: [
        "REVOKED", "USER_VERIFICATION_BYPASS", "ATTESTATION_KEY_COMPROMISE", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE",
    ])
    func compromisedAuthenticatorsAreRefused(status: String) throws {
        let setup = try Self.setup(statuses: [("FIDO_CERTIFIED", "2024-01-01"), (status, "2025-06-01")])
        let response = try Self.packedResponse(setup.certificates)
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.verified, metadata: try setup.blob()))
                == .authenticatorRevoked
        )
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.none, metadata: try setup.blob()))
                == .authenticatorRevoked
        )
    }

    @Test func onlyTheLatestStatusCounts() throws {
        let setup = try Self.setup(statuses: [("FIDO_CERTIFIED", "2025-09-01"), ("REVOKED", "2024-02-01")])
        let result = try Fixture.register(
            try Self.packedResponse(setup.certificates),
            expectations: Self.expectations(.verified, metadata: try setup.blob())
        )
        #expect(result.authenticatorName == Self.name)
    }

    @Test func refusedStatusesAreConfigurable() throws {
        let revoked = try Self.setup(statuses: [("REVOKED", "2025-06-01")])
        let lenient = try revoked.blob(policy: MetadataPolicy(refusedStatuses: []))
        _ = try Fixture.register(try Self.packedResponse(revoked.certificates), expectations: Self.expectations(.verified, metadata: lenient))
        let levelNine = try Self.setup(statuses: [("FIDO_CERTIFIED_L9", "2025-06-01")])
        let strict = try levelNine.blob(policy: MetadataPolicy(refusedStatuses: [AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L9")]))
        let response = try Self.packedResponse(levelNine.certificates)
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.verified, metadata: strict)) == .authenticatorRevoked
        )
    }

    @Test func flippedSignatureIsRefused() throws {
        let setup = try Self.setup()
        var parts = setup.blobText.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[5] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let text = parts.joined(separator: ".")
        #expect(
            Self.blobFailure { try MetadataBLOB(compactJWS: text, trustedRoots: [setup.signer.root], at: Fixture.now) } == .metadataInvalidSignature
        )
    }

    @Test func changedPayloadIsRefused() throws {
        let setup = try Self.setup()
        var parts = setup.blobText.split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(try MetadataBLOBSigner.payload(nextUpdate: Self.nextUpdate, entries: [], number: 43))
        let text = parts.joined(separator: ".")
        #expect(
            Self.blobFailure { try MetadataBLOB(compactJWS: text, trustedRoots: [setup.signer.root], at: Fixture.now) } == .metadataInvalidSignature
        )
    }

    @Test func chainToAnotherRootIsRefused() throws {
        let setup = try Self.setup()
        let otherRoot = try MetadataBLOBSigner.make(at: Fixture.now, rootName: "Passkeyd Test Metadata Root").root
        #expect(
            Self.blobFailure { try MetadataBLOB(compactJWS: setup.blobText, trustedRoots: [otherRoot], at: Fixture.now) } == .metadataUntrustedChain
        )
        #expect(Self.blobFailure { try MetadataBLOB(compactJWS: setup.blobText, trustedRoots: [], at: Fixture.now) } == .metadataUntrustedChain)
    }

    @Test func blobWithoutCertificateChainIsRefused() throws {
        let setup = try Self.setup()
        var parts = setup.blobText.split(separator: ".").map(String.init)
        parts[0] = Base64URL.encode(Array(#"{"alg":"ES256","typ":"JWT"}"#.utf8))
        let text = parts.joined(separator: ".")
        #expect(
            Self.blobFailure { try MetadataBLOB(compactJWS: text, trustedRoots: [setup.signer.root], at: Fixture.now) } == .metadataUntrustedChain
        )
    }

    @Test func blobSigningChainOutsideItsValidityIsRefused() throws {
        let setup = try Self.setup(nextUpdate: "2040-01-01")
        let later = Fixture.now.addingTimeInterval(3 * 365 * Fixture.day)
        #expect(Self.blobFailure { try setup.blob(at: later) } == .metadataUntrustedChain)
    }

    @Test func staleBLOBIsRefused() throws {
        let setup = try Self.setup(nextUpdate: "2026-05-01")
        // Fixture.now is 2026-05-28: nextUpdate passed 27 days ago, beyond the default grace of seven days.
        #expect(Self.blobFailure { try setup.blob() } == .metadataStale)
        _ = try setup.blob(policy: MetadataPolicy(staleBLOBGrace: 30 * Fixture.day))
    }

    @Test func blobThatGoesStaleFailsLaterCeremonies() throws {
        let setup = try Self.setup(nextUpdate: "2026-06-01")
        let blob = try setup.blob()
        let response = try Self.packedResponse(setup.certificates)
        let later = Fixture.relyingParty(at: Fixture.now.addingTimeInterval(20 * Fixture.day))
        #expect(
            Fixture.registrationFailure(response, expectations: Self.expectations(.none, metadata: blob), relyingParty: later) == .metadataStale
        )
    }

    @Test func malformedPayloadIsRefused() throws {
        let signer = try MetadataBLOBSigner.make(at: Fixture.now)
        let notJSON = try signer.sign(payload: Array("{\"no\": 1, ".utf8))
        #expect(Self.blobFailure { try MetadataBLOB(compactJWS: notJSON, trustedRoots: [signer.root], at: Fixture.now) } == .metadataMalformed)
        let missingEntries = try signer.sign(payload: Array(#"{"legalHeader": "x", "no": 1, "nextUpdate": "2026-07-01"}"#.utf8))
        #expect(
            Self.blobFailure { try MetadataBLOB(compactJWS: missingEntries, trustedRoots: [signer.root], at: Fixture.now) } == .metadataMalformed
        )
        let badDate = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "July 2026", entries: []))
        #expect(Self.blobFailure { try MetadataBLOB(compactJWS: badDate, trustedRoots: [signer.root], at: Fixture.now) } == .metadataMalformed)
        #expect(Self.blobFailure { try MetadataBLOB(compactJWS: "not a jws", trustedRoots: [signer.root], at: Fixture.now) } == .metadataMalformed)
    }

    // MARK: policies

    @Test func allowListAcceptsListedAAGUIDs() throws {
        let setup = try Self.setup()
        let response = try Self.packedResponse(setup.certificates)
        let listed = Self.expectations(.allowList([Self.aaguidText.uppercased()]), metadata: try setup.blob())
        #expect(try Fixture.register(response, expectations: listed).authenticatorName == Self.name)
        let unlisted = Self.expectations(.allowList(["00112233-4455-6677-8899-aabbccddeeff"]), metadata: try setup.blob())
        #expect(Fixture.registrationFailure(response, expectations: unlisted) == .aaguidNotAllowed)
    }

    @Test func allowListAlsoRequiresAVerifiedChain() throws {
        let setup = try Self.setup()
        let response = try Self.packedResponse(setup.certificates)
        #expect(Fixture.registrationFailure(response, expectations: Self.expectations(.allowList([Self.aaguidText]))) == .notTrusted)
    }

    @Test func verifiedPolicyRefusesSelfAndNoneAttestation() throws {
        let setup = try Self.setup()
        let blob = try setup.blob()
        for kind in [AttestationKind.packedSelf, .none] {
            let response = try Fixture.authenticator.register(
                try SoftwareCredential.generate(.es256),
                challenge: Fixture.challenge,
                options: RegistrationOptions(attestation: kind)
            )
            #expect(Fixture.registrationFailure(response, expectations: Self.expectations(.verified, metadata: blob)) == .notTrusted)
            #expect(
                Fixture.registrationFailure(response, expectations: Self.expectations(.allowList([Self.aaguidText]), metadata: blob))
                    == .notTrusted
            )
            #expect(try Fixture.register(response, expectations: Self.expectations(.none, metadata: blob)).authenticatorName == Self.name)
        }
    }

    @Test func nonePolicyAcceptsWhatItAcceptedBefore() throws {
        let setup = try Self.setup()
        let result = try Fixture.register(try Self.packedResponse(setup.certificates), expectations: Self.expectations(.none))
        #expect(result.attestation.trustEvaluation == .notEvaluated)
        #expect(result.authenticatorName == nil)
        #expect(AttestationPolicy.none.conveyancePreference == "none")
        #expect(AttestationPolicy.verified.conveyancePreference == "direct")
    }

    @Test func u2fAuthenticatorsAreFoundByKeyIdentifier() throws {
        let setup = try Self.setup { certificates in
            // fido-u2f sends the leaf alone, so the metadata lists the CA that issued it.
            MetadataBLOBSigner.entry(
                keyIdentifiers: [certificates.leaf.subjectPublicKeyIdentifier.uppercased()],
                description: "Test U2F Key",
                roots: [certificates.intermediate]
            )
        }
        let response = try Fixture.authenticator.register(
            try SoftwareCredential.generate(.es256),
            challenge: Fixture.challenge,
            options: RegistrationOptions(attestation: .fidoU2F(setup.certificates), aaguid: [UInt8](repeating: 0, count: 16))
        )
        let result = try Fixture.register(response, expectations: Self.expectations(.verified, metadata: try setup.blob()))
        #expect(result.authenticatorName == "Test U2F Key")
        #expect(result.attestation.trustEvaluation == .trusted(anchorFingerprint: setup.certificates.intermediate.sha256Fingerprint))
    }

    @Test func nameListNamesAuthenticatorsTheMetadataDoesNotDescribe() throws {
        let names = try AuthenticatorNameList(
            json: Array("{\"\(Self.aaguidText.uppercased())\": {\"name\": \"Listed Provider\", \"icon_dark\": \"data:\"}}".utf8)
        )
        let response = try Fixture.authenticator.register(try SoftwareCredential.generate(.es256), challenge: Fixture.challenge)
        #expect(try Fixture.register(response, expectations: Self.expectations(.none, names: names)).authenticatorName == "Listed Provider")
        #expect(names.name(for: [UInt8](repeating: 0, count: 16)) == nil)
        #expect(Fixture.failureCode { _ = try AuthenticatorNameList(json: Array(#"{"x": {"icon": "y"}}"#.utf8)) } == .metadataMalformed)
        #expect(Fixture.failureCode { _ = try AuthenticatorNameList(json: Array("[1]".utf8)) } == .metadataMalformed)
    }
}
