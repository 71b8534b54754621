import CryptoCore

/// The packed attestation certificate requirements (WebAuthn §8.2.1).
enum PackedCertificateRequirements {
    static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    static func check(_ certificate: X509Certificate) throws(WebAuthnError) {
        // §8.2.1: Version MUST be set to 3.
        guard certificate.version == 3 else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate is not X.509 version 3")
        }
        // §8.2.1: Subject-C: ISO 3166 code specifying the country where the Authenticator vendor is incorporated.
        let countries = certificate.subjectValues("2.5.4.6")
        guard countries.count == 1, countries[0].count == 2 else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate subject needs one two-letter C")
        }
        // §8.2.1: Subject-O: legal name of the Authenticator vendor.
        guard certificate.subjectValues("2.5.4.10").first.map({ !$0.isEmpty }) == true else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate subject has no O")
        }
        // §8.2.1: Subject-OU: literal string "Authenticator Attestation".
        guard certificate.subjectValues("2.5.4.11") == ["Authenticator Attestation"] else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate subject OU is not \"Authenticator Attestation\"")
        }
        // §8.2.1: Subject-CN: a UTF8String of the vendor's choosing.
        guard certificate.subjectValues("2.5.4.3").first.map({ !$0.isEmpty }) == true else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate subject has no CN")
        }
        // §8.2.1: the Basic Constraints extension MUST have the CA component set to false.
        guard certificate.basicConstraintsCA != true else {
            throw WebAuthnError(.certificateRequirements, "attestation certificate is a CA certificate")
        }
    }

    /// §8.2.1: id-fido-gen-ce-aaguid, when present, MUST NOT be critical and holds the AAGUID as an OCTET STRING.
    static func checkAAGUIDExtension(_ certificate: X509Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard let (critical, value) = certificate.extensionValue(aaguidExtensionOID) else { return }
        guard !critical else {
            throw WebAuthnError(.certificateRequirements, "id-fido-gen-ce-aaguid must not be critical")
        }
        let element: ASN1Element
        do {
            element = try ASN1Element.single(value)
        } catch {
            throw WebAuthnError(.certificateRequirements, "id-fido-gen-ce-aaguid is not one DER OCTET STRING")
        }
        guard element.tagClass == .universal, element.tag == 4, !element.isConstructed, element.contents.count == 16 else {
            throw WebAuthnError(.certificateRequirements, "id-fido-gen-ce-aaguid is not a 16-byte OCTET STRING")
        }
        guard element.contents == aaguid else {
            throw WebAuthnError(.aaguidMismatch, "AAGUID in the attestation certificate differs from authenticator data")
        }
    }
}
