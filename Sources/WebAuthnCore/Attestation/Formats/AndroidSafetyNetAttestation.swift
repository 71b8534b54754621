import CryptoCore
import Foundation

/// The `android-safetynet` attestation statement format (WebAuthn §8.5): a SafetyNet attestation JWS (RFC 7515
/// compact serialization) signed by Google's `attest.android.com` certificate.
enum AndroidSafetyNetAttestation {
    static let attestationHostname = "attest.android.com"

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
            throw WebAuthnError(.malformedStatement, "android-safetynet attStmt ver is missing, empty or not text")
        }
        // §8.5: response is the UTF-8 encoded result of the getJwsResult() call of the SafetyNet API.
        guard let responseBytes = input.statement["response"]?.bytesValue,
            let response = String(validating: responseBytes, as: UTF8.self)
        else {
            throw WebAuthnError(.malformedStatement, "android-safetynet attStmt response is missing or not UTF-8 bytes")
        }
        let jws: CompactJWS
        let payload: Payload
        let certificates: [X509Certificate]
        do {
            jws = try CompactJWS(response, strictBase64URL: false)
            payload = try JSONDecoder().decode(Payload.self, from: Data(jws.payload))
            guard let chain = try jws.certificates() else { throw CryptoError(.malformedJWS, "no x5c") }
            certificates = chain
        } catch let error as CryptoError where error.code == .invalidCertificate {
            throw WebAuthnError(.invalidCertificate, "a SafetyNet x5c certificate could not be parsed: \(error.reason)")
        } catch {
            throw WebAuthnError(.safetyNetMalformedResponse, "android-safetynet response is not a compact JWS with x5c")
        }
        let leaf = certificates[0]
        // §8.5: verify that response is a valid SafetyNet response of version ver; Google's steps: check that the JWS
        // signature verifies with the leaf certificate of the chain in the JWS header.
        let leafKey = try input.publicKey(of: leaf, role: "SafetyNet signing certificate")
        guard jws.verifySignature(with: leafKey) else {
            throw WebAuthnError(.attestationInvalidSignature, "SafetyNet JWS signature does not verify with its signing certificate")
        }
        // §8.5 (Google's steps): verify that the signing certificate is issued to the hostname attest.android.com.
        guard leaf.subjectValues("2.5.4.3").contains(attestationHostname) || leaf.subjectAlternativeDNSNames.contains(attestationHostname) else {
            throw WebAuthnError(.safetyNetHostnameMismatch, "SafetyNet signing certificate is not issued to attest.android.com")
        }
        // §8.5: verify that the nonce attribute in the payload of response is identical to the Base64 encoding of the
        // SHA-256 hash of the concatenation of authenticatorData and clientDataHash.
        let expectedNonce = Data(DigestAlgorithm.sha256.hash(input.signedData)).base64EncodedString()
        guard payload.nonce == expectedNonce else {
            throw WebAuthnError(.safetyNetNonceMismatch, "SafetyNet nonce is not base64(SHA-256(authenticatorData || clientDataHash))")
        }
        // §8.5 (Google's steps): the device must pass the compatibility test suite when the RP requires it.
        if input.safetyNet.requiresCTSProfileMatch {
            guard payload.ctsProfileMatch == true else {
                throw WebAuthnError(.safetyNetCTSProfileMismatch, "SafetyNet ctsProfileMatch is not true")
            }
        }
        // §8.5 (Google's steps): the response must be fresh: timestampMs within the RP's window of the verification time.
        if let skew = input.safetyNet.maximumTimestampSkew {
            guard let timestamp = payload.timestampMs,
                abs(timestamp / 1000 - input.time.timeIntervalSince1970) <= skew
            else {
                throw WebAuthnError(
                    .safetyNetTimestampOutOfRange,
                    "SafetyNet timestampMs is not within \(skew) s of the verification time"
                )
            }
        }
        // §8.5: return attestation type Basic and the trust path x5c.
        let evaluation = try input.evaluateTrust(certificates)
        return AttestationResult(format: .androidSafetyNet, type: .basic, trustPath: certificates, trustEvaluation: evaluation)
    }
}
