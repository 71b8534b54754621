import CBOR
import CryptoCore
import Foundation

/// What every attestation statement verification procedure receives (WebAuthn §8: attStmt, authenticatorData,
/// clientDataHash), plus the ceremony's trust anchors, FIDO metadata and verification time.
struct AttestationInput {
    let statement: CBORValue
    let authenticatorData: AuthenticatorData
    let credential: AttestedCredentialData
    let clientDataHash: [UInt8]
    let trustAnchors: [X509Certificate]
    let metadata: MetadataBLOB?
    let time: Date
    let safetyNet: SafetyNetPolicy

    /// `authenticatorData || clientDataHash`, what most formats sign.
    var signedData: [UInt8] { authenticatorData.bytes + clientDataHash }

    /// The statement's map members, checked against the keys the format allows.
    func requireOnly(_ allowed: Set<String>, format: AttestationFormat) throws(WebAuthnError) {
        for entry in statement.mapValue ?? [] {
            guard let key = entry.key.textValue, allowed.contains(key) else {
                throw WebAuthnError(.malformedStatement, "\(format.rawValue) attStmt has an unexpected member")
            }
        }
    }

    /// The `x5c` array decoded into certificates (leaf first); nil when absent. `repairingYubicoDefect`: each through
    /// `YubicoCertificateRepair` first (fido-u2f only).
    func certificates(repairingYubicoDefect: Bool = false) throws(WebAuthnError) -> [X509Certificate]? {
        guard let value = statement["x5c"] else { return nil }
        guard let array = value.arrayValue, !array.isEmpty else {
            throw WebAuthnError(.malformedStatement, "x5c is not a non-empty array")
        }
        var certificates: [X509Certificate] = []
        for element in array {
            guard let der = element.bytesValue else { throw WebAuthnError(.malformedStatement, "x5c holds a non-byte-string element") }
            do {
                certificates.append(try X509Certificate(der: repairingYubicoDefect ? YubicoCertificateRepair.repaired(der) : der))
            } catch {
                throw WebAuthnError(.invalidCertificate, "an x5c certificate could not be parsed: \(error.reason)")
            }
        }
        return certificates
    }

    /// The signature algorithm named by `alg`.
    func algorithm() throws(WebAuthnError) -> COSEAlgorithm {
        guard let raw = statement["alg"]?.integerValue else {
            throw WebAuthnError(.malformedStatement, "attStmt alg is missing or not an integer")
        }
        guard let algorithm = COSEAlgorithm(rawValue: Int(raw)) else {
            throw WebAuthnError(.attestationUnsupportedAlgorithm, "attestation algorithm \(raw) is not supported")
        }
        return algorithm
    }

    /// The `sig` byte string.
    func signature() throws(WebAuthnError) -> [UInt8] {
        guard let signature = statement["sig"]?.bytesValue else {
            throw WebAuthnError(.malformedStatement, "attStmt sig is missing or not a byte string")
        }
        return signature
    }

    /// Verifies the certificate path from `certificates` to a configured anchor, or to a root the FIDO metadata lists
    /// for this authenticator, at the ceremony's time. With no anchors the path is reported as not evaluated, though
    /// every certificate must still be within its validity period at that time; with anchors, a path that does not
    /// verify fails.
    func evaluateTrust(_ certificates: [X509Certificate]) throws(WebAuthnError) -> TrustPathEvaluation {
        // §7.1 step 23: obtain a list of acceptable trust anchors "from a trusted source or from policy. For example, the FIDO
        // Metadata Service provides one way to obtain such information, using the aaguid in the attestedCredentialData in authData."
        let metadataRoots = metadata?.entry(aaguid: credential.aaguid, certificates: certificates)?.statement?.attestationRootCertificates ?? []
        let trustAnchors = trustAnchors + metadataRoots
        guard !trustAnchors.isEmpty else {
            for certificate in certificates {
                guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter, notBefore <= time, time <= notAfter else {
                    throw WebAuthnError(.certificateExpired, "an attestation certificate is not valid at the verification time")
                }
            }
            return .notEvaluated
        }
        do {
            let path = try CertificateChainVerifier(trustAnchors: trustAnchors)
                .verify(leaf: certificates[0], intermediates: Array(certificates.dropFirst()), at: time)
            return .trusted(anchorFingerprint: path.last?.sha256Fingerprint ?? "")
        } catch  where error.code == .certificateExpired {
            throw WebAuthnError(.certificateExpired, error.reason)
        } catch {
            throw WebAuthnError(.certificateChainUntrusted, error.reason)
        }
    }

    /// The subject public key of an attestation certificate; `role` names the certificate in the error.
    func publicKey(of certificate: X509Certificate, role: String) throws(WebAuthnError) -> PublicKey {
        do {
            return try certificate.publicKey()
        } catch {
            throw WebAuthnError(.invalidCertificate, "\(role) key is unusable: \(error.reason)")
        }
    }

    /// Requires `certificate`'s subject public key to be the credential public key (same key, any encoding), and
    /// returns it.
    @discardableResult
    func requireCredentialKey(in certificate: X509Certificate) throws(WebAuthnError) -> PublicKey {
        let key = try publicKey(of: certificate, role: "credential certificate")
        guard key.matches(credential.credentialPublicKey.publicKey) else {
            throw WebAuthnError(.publicKeyMismatch, "credential certificate key differs from the credential public key")
        }
        return key
    }
}
