import CryptoCore
import Foundation

/// The `android-safetynet` attestation statement format (WebAuthn §8.5): a SafetyNet attestation JWS (RFC 7515
/// compact serialization) signed by Google's `attest.android.com` certificate.
enum AndroidSafetyNetAttestation {
    static let attestationHostname = "attest.android.com"

    /// The JOSE header members used: the signature algorithm and the certificate chain (standard base64 DER).
    private struct Header: Decodable {
        let alg: String
        let x5c: [String]
    }

    /// The SafetyNet payload members used.
    private struct Payload: Decodable {
        let nonce: String?
        let timestampMs: Double?
        let ctsProfileMatch: Bool?
    }

    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationResult {
        // §8.5: attStmt is {ver, response}; check that it is valid CBOR of that syntax.
        try input.requireOnly(["ver", "response"], format: .androidSafetyNet)
        // §8.5: ver is the version number of Google Play Services responsible for providing the SafetyNet API.
        guard let version = input.statement["ver"]?.textValue, !version.isEmpty else {
            throw WebAuthnError("attestation.malformedStatement", "android-safetynet attStmt ver is missing, empty or not text")
        }
        // §8.5: response is the UTF-8 encoded result of the getJwsResult() call of the SafetyNet API.
        guard let responseBytes = input.statement["response"]?.bytesValue,
              let response = String(validating: responseBytes, as: UTF8.self)
        else {
            throw WebAuthnError("attestation.malformedStatement", "android-safetynet attStmt response is missing or not UTF-8 bytes")
        }
        let parts = response.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64URL.decodeLenient(String(parts[0])),
              let payloadBytes = Base64URL.decodeLenient(String(parts[1])),
              let signature = Base64URL.decodeLenient(String(parts[2])),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
              let payload = try? JSONDecoder().decode(Payload.self, from: Data(payloadBytes))
        else {
            throw WebAuthnError("attestation.safetyNetMalformedResponse", "android-safetynet response is not a compact JWS with x5c")
        }
        let certificates = try parseCertificates(header.x5c)
        let leaf = certificates[0]
        // §8.5: verify that response is a valid SafetyNet response of version ver; Google's steps: check that the JWS
        // signature verifies with the leaf certificate of the chain in the JWS header.
        let leafKey: PublicKey
        do {
            leafKey = try leaf.publicKey()
        } catch {
            throw WebAuthnError("attestation.invalidCertificate", "SafetyNet signing certificate key is unusable: \(error.reason)")
        }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard verifyJWSSignature(signature, over: signingInput, algorithm: header.alg, key: leafKey) else {
            throw WebAuthnError("attestation.invalidSignature", "SafetyNet JWS signature does not verify with its signing certificate")
        }
        // §8.5 (Google's steps): verify that the signing certificate is issued to the hostname attest.android.com.
        guard leaf.subjectValues("2.5.4.3").contains(attestationHostname) || leaf.subjectAlternativeDNSNames.contains(attestationHostname) else {
            throw WebAuthnError("attestation.safetyNetHostnameMismatch", "SafetyNet signing certificate is not issued to attest.android.com")
        }
        // §8.5: verify that the nonce attribute in the payload of response is identical to the Base64 encoding of the
        // SHA-256 hash of the concatenation of authenticatorData and clientDataHash.
        let expectedNonce = Data(DigestAlgorithm.sha256.hash(input.signedData)).base64EncodedString()
        guard payload.nonce == expectedNonce else {
            throw WebAuthnError("attestation.safetyNetNonceMismatch", "SafetyNet nonce is not base64(SHA-256(authenticatorData || clientDataHash))")
        }
        // §8.5 (Google's steps): the device must pass the compatibility test suite when the RP requires it.
        if input.safetyNet.requiresCTSProfileMatch {
            guard payload.ctsProfileMatch == true else {
                throw WebAuthnError("attestation.safetyNetCTSProfileMismatch", "SafetyNet ctsProfileMatch is not true")
            }
        }
        // §8.5 (Google's steps): the response must be fresh: timestampMs within the RP's window of the verification time.
        if let skew = input.safetyNet.maximumTimestampSkew {
            guard let timestamp = payload.timestampMs,
                  abs(timestamp / 1000 - input.time.timeIntervalSince1970) <= skew
            else {
                throw WebAuthnError("attestation.safetyNetTimestampOutOfRange", "SafetyNet timestampMs is not within \(skew) s of the verification time")
            }
        }
        // §8.5: return attestation type Basic and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .androidSafetyNet, type: .basic, trustPath: certificates, trustEvaluation: evaluation)
    }

    /// The JWS header's x5c: standard base64 DER certificates, leaf first (RFC 7515 §4.1.6).
    private static func parseCertificates(_ encoded: [String]) throws(WebAuthnError) -> [X509Certificate] {
        guard !encoded.isEmpty else {
            throw WebAuthnError("attestation.safetyNetMalformedResponse", "SafetyNet JWS header x5c is empty")
        }
        var certificates: [X509Certificate] = []
        for text in encoded {
            guard let der = Data(base64Encoded: text).map(Array.init) else {
                throw WebAuthnError("attestation.safetyNetMalformedResponse", "SafetyNet x5c entry is not standard base64")
            }
            do {
                certificates.append(try X509Certificate(der: der))
            } catch {
                throw WebAuthnError("attestation.invalidCertificate", "a SafetyNet x5c certificate could not be parsed: \(error.reason)")
            }
        }
        return certificates
    }

    /// Verifies a JWS signature (RFC 7518 §3): RSASSA-PKCS1-v1_5, RSASSA-PSS, or ECDSA with its raw `r || s` form.
    private static func verifyJWSSignature(_ signature: [UInt8], over message: [UInt8], algorithm: String, key: PublicKey) -> Bool {
        let scheme: SignatureAlgorithm
        switch algorithm {
        case "RS256": scheme = .rsaPKCS1SHA256
        case "RS384": scheme = .rsaPKCS1SHA384
        case "RS512": scheme = .rsaPKCS1SHA512
        case "PS256": scheme = .rsaPSSSHA256
        case "PS384": scheme = .rsaPSSSHA384
        case "PS512": scheme = .rsaPSSSHA512
        case "ES256": scheme = .ecdsaSHA256
        case "ES384": scheme = .ecdsaSHA384
        case "ES512": scheme = .ecdsaSHA512
        default: return false
        }
        guard scheme.keyType == .ec else { return key.verify(signature: signature, message: message, algorithm: scheme) }
        let expectedCurve: EllipticCurve = switch scheme {
        case .ecdsaSHA384: .p384
        case .ecdsaSHA512: .p521
        default: .p256
        }
        guard key.curve == expectedCurve, let der = ECDSASignatureEncoding.derEncoded(raw: signature, curve: expectedCurve) else { return false }
        return key.verify(signature: der, message: message, algorithm: scheme)
    }
}
