import CBOR
import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import WebAuthnCore

/// Issue 43 item 15: a first-generation "Security Key by Yubico" whose attestation certificate carries the known
/// signature encoding defect (`TestVectors/u2f/`, a real registration) registers once its certificate is repaired, by
/// fingerprint, and nothing else is repaired.
@Suite("fido-u2f: the repaired Yubico certificates")
struct YubicoCertificateRepairTests {
    /// The parts of the vector's U2F registration message (FIDO U2F raw message formats §4.3).
    struct Registration {
        let publicKey: [UInt8]
        let keyHandle: [UInt8]
        let certificate: [UInt8]
        let signature: [UInt8]
        let clientData: [UInt8]
        let appID: String
    }

    /// The vector file's members these tests read.
    struct Vector: Decodable {
        let registrationData: String
        let clientData: String
        let appId: String
        let attestationCertificateSHA256: String
        let repairedCertificateSHA256: String
    }

    static func vector() throws -> Vector {
        let url = TestVectorFile.directory.appendingPathComponent("u2f/yubico-u2f-ee-serial-13831167861.json")
        return try JSONDecoder().decode(Vector.self, from: Data(contentsOf: url))
    }

    static func registration() throws -> Registration {
        let vector = try vector()
        let data = try #require(Base64URL.decode(vector.registrationData))
        try #require(data.first == 0x05)
        let keyHandleLength = Int(data[66])
        let rest = Array(data[(67 + keyHandleLength)...])
        let certificateLength = 4 + Int(rest[2]) << 8 + Int(rest[3])
        return Registration(
            publicKey: Array(data[1..<66]),
            keyHandle: Array(data[67..<(67 + keyHandleLength)]),
            certificate: Array(rest[..<certificateLength]),
            signature: Array(rest[certificateLength...]),
            clientData: try #require(Base64URL.decode(vector.clientData)),
            appID: vector.appId
        )
    }

    static func yubicoRoot() throws -> X509Certificate {
        let url = TestVectorFile.directory.deletingLastPathComponent().appendingPathComponent("TrustAnchors/yubico-u2f-root-ca-serial-457200631.pem")
        return try #require(try X509Certificate.certificates(pem: String(contentsOf: url, encoding: .utf8)).first)
    }

    /// A time inside the certificates' validity (2014-08-01 to 2050-09-04).
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    static func chainFailure(_ der: [UInt8]) throws -> CryptoError? {
        let verifier = CertificateChainVerifier(trustAnchors: [try yubicoRoot()])
        let leaf = try X509Certificate(der: der)
        do throws(CryptoError) {
            _ = try verifier.verify(leaf: leaf, intermediates: [], at: time)
            return nil
        } catch {
            return error
        }
    }

    @Test func theRealCertificateIsListedAndFailsWithoutTheRepair() throws {
        let certificate = try Self.registration().certificate
        #expect(try Hex.encode(DigestAlgorithm.sha256.hash(certificate)) == Self.vector().attestationCertificateSHA256)
        #expect(YubicoCertificateRepair.fingerprints.contains(Hex.encode(DigestAlgorithm.sha256.hash(certificate))))
        // The defect: the signature BIT STRING claims 2 unused bits, which OpenSSL refuses ("invalid bit string bits
        // left" in ASN1_item_verify, reported by the path check as a signature failure).
        #expect(certificate[certificate.count - 257] == 0x02)
        let failure = try #require(try Self.chainFailure(certificate))
        #expect(failure.code == .chainUntrusted && failure.reason.contains("certificate signature failure"), "\(failure)")
    }

    @Test func theRepairedCertificateVerifiesToTheYubicoRoot() throws {
        let certificate = try Self.registration().certificate
        let repaired = YubicoCertificateRepair.repaired(certificate)
        #expect(try Hex.encode(DigestAlgorithm.sha256.hash(repaired)) == Self.vector().repairedCertificateSHA256)
        #expect(zip(certificate, repaired).filter { $0 != $1 }.count == 1 && repaired[repaired.count - 257] == 0)
        #expect(try Self.chainFailure(repaired) == nil)
    }

    @Test func aCertificateOneByteDifferentIsNotRepaired() throws {
        let certificate = try Self.registration().certificate
        var other = certificate
        other[other.count - 1] ^= 0x01
        #expect(YubicoCertificateRepair.repaired(other) == other)
        #expect(try Self.chainFailure(YubicoCertificateRepair.repaired(other)) != nil)
        // Nor a listed one whose byte is already 0 (nothing to repair), nor one too short to hold the signature.
        let zero = YubicoCertificateRepair.repaired(certificate)
        #expect(YubicoCertificateRepair.repaired(zero) == zero)
        #expect(YubicoCertificateRepair.repaired([0x02]) == [0x02])
    }

    /// The registration as a WebAuthn fido-u2f attestation statement (the same signed bytes, §8.6 step 5: the U2F
    /// application parameter is the rpIdHash), through the format's procedure with the Yubico root as trust anchor.
    static func verifyStatement(certificate: [UInt8]) throws -> Result<AttestationResult, WebAuthnError> {
        let registration = try registration()
        let x = registration.publicKey[1..<33]
        let y = registration.publicKey[33..<65]
        let key = CBOREncoder.encode(
            .map([
                CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .negative(6)),
                CBORMapEntry(key: .negative(0), value: .unsigned(1)), CBORMapEntry(key: .negative(1), value: .bytes(Array(x))),
                CBORMapEntry(key: .negative(2), value: .bytes(Array(y))),
            ])
        )
        let authenticatorData = try AuthenticatorData(
            bytes: DigestAlgorithm.sha256.hash(Array(registration.appID.utf8)) + [0x41, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
                + [0, UInt8(registration.keyHandle.count)] + registration.keyHandle + key
        )
        let input = AttestationInput(
            statement: .map([
                CBORMapEntry(key: .text("sig"), value: .bytes(registration.signature)),
                CBORMapEntry(key: .text("x5c"), value: .array([.bytes(certificate)])),
            ]),
            authenticatorData: authenticatorData,
            credential: try #require(authenticatorData.attestedCredentialData),
            clientDataHash: DigestAlgorithm.sha256.hash(registration.clientData),
            trustAnchors: [try yubicoRoot()],
            metadata: nil,
            time: time,
            safetyNet: SafetyNetPolicy()
        )
        do throws(WebAuthnError) {
            return .success(try AttestationVerifier.verify(format: "fido-u2f", input: input))
        } catch {
            return .failure(error)
        }
    }

    @Test func theRealRegistrationVerifiesAndIsTrusted() throws {
        let certificate = try Self.registration().certificate
        let result = try Self.verifyStatement(certificate: certificate).get()
        #expect(result.trustEvaluation == .trusted(anchorFingerprint: try Self.yubicoRoot().sha256Fingerprint))
        #expect(result.trustPath.first?.der == YubicoCertificateRepair.repaired(certificate))
    }

    @Test func aCertificateOneByteDifferentStillFailsTheChain() throws {
        var certificate = try Self.registration().certificate
        // A byte of the signature, so that the key and the statement's signature still verify: only the path fails.
        certificate[certificate.count - 1] ^= 0x01
        guard case .failure(let error) = try Self.verifyStatement(certificate: certificate) else {
            Issue.record("an unlisted certificate with the defect was accepted")
            return
        }
        #expect(error.code == .certificateChainUntrusted)
    }
}
