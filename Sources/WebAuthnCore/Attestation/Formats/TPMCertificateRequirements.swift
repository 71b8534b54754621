import CryptoCore

/// The TPM attestation (AIK) certificate requirements (WebAuthn §8.3.1). The TPM manufacturer is not checked
/// against the TCG vendor registry: conformance and test TPMs use identifiers outside it (`id:FFFFF1D0`, `id:00000000`).
enum TPMCertificateRequirements {
    static let subjectAlternativeNameOID = "2.5.29.17"
    static let manufacturerOID = "2.23.133.2.1"
    static let modelOID = "2.23.133.2.2"
    static let versionOID = "2.23.133.2.3"
    static let attestationIdentityKeyUsageOID = "2.23.133.8.3"

    static func check(_ certificate: X509Certificate) throws(WebAuthnError) {
        // §8.3.1: Version MUST be set to 3.
        guard certificate.version == 3 else {
            throw WebAuthnError(.aikCertificateVersion, "AIK certificate is not X.509 version 3")
        }
        // §8.3.1: Subject field MUST be set to empty.
        guard certificate.subject.isEmpty else {
            throw WebAuthnError(.aikCertificateSubject, "AIK certificate subject is not empty")
        }
        // §8.3.1: the Subject Alternative Name extension MUST be set as defined in [TPMv2-EK-Profile] section 3.2.9
        // (critical, since the subject is empty, holding the TPM manufacturer, model and version as a directoryName).
        guard let (critical, _) = certificate.extensionValue(subjectAlternativeNameOID), critical else {
            throw WebAuthnError(.aikCertificateSubjectAlternativeName, "AIK certificate has no critical Subject Alternative Name")
        }
        let attributes = Set(certificate.subjectAlternativeDirectoryNames.filter { !$0.value.isEmpty }.map(\.oid))
        guard attributes.isSuperset(of: [manufacturerOID, modelOID, versionOID]) else {
            throw WebAuthnError(
                .aikCertificateSubjectAlternativeName,
                "AIK certificate Subject Alternative Name lacks the TPM manufacturer, model or version"
            )
        }
        // §8.3.1: the Extended Key Usage extension MUST contain the OID 2.23.133.8.3 (tcg-kp-AIKCertificate).
        guard certificate.extendedKeyUsages.contains(attestationIdentityKeyUsageOID) else {
            throw WebAuthnError(.aikCertificateExtendedKeyUsage, "AIK certificate Extended Key Usage lacks tcg-kp-AIKCertificate")
        }
        // §8.3.1: the Basic Constraints extension MUST have the CA component set to false (an absent extension
        // means cA FALSE, RFC 5280 §4.2.1.9, as for packed certificates).
        guard certificate.basicConstraintsCA != true else {
            throw WebAuthnError(.aikCertificateBasicConstraints, "AIK certificate is a CA certificate")
        }
    }
}
