// Target `x509`: X509Certificate(der:) (and certificates(pem:) on the bytes as text) and every accessor passkeyd uses on attestation certificates (names,
// validity, key, extensions, Basic Constraints, EKU, SAN, the packed/TPM certificate rules, Android's KeyDescription
// and Apple's nonce extension), plus ASN1Element.sequence / children on the same bytes.
import CryptoCore

@testable import WebAuthnCore

private func walk(_ elements: [ASN1Element], depth: Int) {
    guard depth < 8 else { return }
    for element in elements {
        _ = element.integerValue
        if element.isConstructed, let children = try? element.children() { walk(children, depth: depth + 1) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    if let elements = try? ASN1Element.sequence(input) {
        walk(elements, depth: 0)
        _ = try? ASN1Element.single(input)
    }
    _ = try? AndroidKeyDescription(der: input)
    // PEM trust anchors (`passkeyd verify --trust-anchors`, vector files) go through the same parser.
    _ = try? X509Certificate.certificates(pem: String(decoding: input, as: UTF8.self))
    guard let certificate = try? X509Certificate(der: input) else { return 0 }
    _ = certificate.version
    _ = certificate.subject
    _ = certificate.issuer
    _ = certificate.subjectValues("2.5.4.3")
    _ = certificate.notBefore
    _ = certificate.notAfter
    _ = try? certificate.publicKey()
    for oid in ["1.3.6.1.4.1.45724.1.1.4", "1.2.840.113635.100.8.2", "1.3.6.1.4.1.11129.2.1.17", "2.5.29.19", "2.5.29.17", "2.5.29.37"] {
        _ = certificate.extensionValue(oid)
        _ = certificate.extensionCount(oid)
    }
    _ = certificate.basicConstraintsCA
    _ = certificate.extendedKeyUsages
    _ = certificate.subjectAlternativeDirectoryNames
    _ = certificate.subjectAlternativeDNSNames
    _ = certificate.sha256Fingerprint
    _ = certificate.isSelfIssued
    _ = try? PackedCertificateRequirements.check(certificate)
    _ = try? PackedCertificateRequirements.checkAAGUIDExtension(certificate, aaguid: [UInt8](repeating: 0, count: 16))
    _ = try? TPMCertificateRequirements.check(certificate)
    _ = try? AndroidKeyDescription(certificate: certificate)
    return 0
}
