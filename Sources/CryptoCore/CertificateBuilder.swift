import COpenSSL
import Foundation

/// Builds X.509 certificates with OpenSSL's X509 API: for test authenticators' attestation chains and for
/// certificate-requirement tests, so that no certificate is ever stored in source. Every field is
/// configurable, including values a conforming CA would never issue (version 1, a three-letter country,
/// a critical private extension), because tests must be able to build the certificates verification refuses.
package struct CertificateBuilder: Sendable {
    /// One name attribute: a short name ("CN", "O") or dotted OID ("2.5.4.11"), and its UTF-8 value.
    package struct NameAttribute: Sendable, Equatable {
        package var attribute: String
        package var value: String

        package init(_ attribute: String, _ value: String) {
            self.attribute = attribute
            self.value = value
        }
    }

    /// An extension written exactly as given: the dotted OID, the critical flag and the DER of its value
    /// (the contents of the extnValue OCTET STRING).
    package struct Extension: Sendable, Equatable {
        package var oid: String
        package var critical: Bool
        package var value: [UInt8]

        package init(oid: String, critical: Bool, value: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.value = value
        }
    }

    /// X.509 version as written in the certificate (1, 2 or 3). Versions below 3 carry no extensions.
    package var version: Int
    package var serialNumber: Int
    package var subject: [NameAttribute]
    /// The issuer's name; nil for a self-issued certificate (issuer = subject).
    package var issuer: [NameAttribute]?
    package var notBefore: Date
    package var notAfter: Date
    /// The Basic Constraints cA flag (written critical); nil leaves the extension out.
    package var certificateAuthority: Bool?
    /// Further extensions, written after Basic Constraints in the order given.
    package var extensions: [Extension]

    package init(
        subject: [NameAttribute],
        issuer: [NameAttribute]? = nil,
        notBefore: Date,
        notAfter: Date,
        version: Int = 3,
        serialNumber: Int = 1,
        certificateAuthority: Bool? = false,
        extensions: [Extension] = []
    ) {
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.version = version
        self.serialNumber = serialNumber
        self.certificateAuthority = certificateAuthority
        self.extensions = extensions
    }

    /// The certificate for `subjectKey`, signed by `issuerKey` (SHA-256, or pure EdDSA for Edwards keys).
    /// For a self-signed certificate pass the subject's own private key and leave `issuer` nil.
    package func build(subjectKey: PublicKey, issuerKey: PrivateKey) throws(CryptoError) -> X509Certificate {
        guard (1...3).contains(version) else { throw CryptoError(.unsupported, "X.509 version must be 1, 2 or 3") }
        guard let certificate = X509_new() else { throw CryptoError(.internalFailure, "X509_new failed") }
        defer { X509_free(certificate) }
        guard X509_set_version(certificate, Int(version - 1)) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), serialNumber) == 1
        else { throw failure("version or serial number rejected") }
        try Self.fill(X509_get_subject_name(certificate), with: subject)
        try Self.fill(X509_get_issuer_name(certificate), with: issuer ?? subject)
        guard ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(notBefore.timeIntervalSince1970.rounded(.down))) != nil,
            ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(notAfter.timeIntervalSince1970.rounded(.down))) != nil
        else { throw failure("validity rejected") }
        guard X509_set_pubkey(certificate, subjectKey.key) == 1 else { throw failure("subject key rejected") }
        if version == 3 {
            if let certificateAuthority {
                let value: [UInt8] = certificateAuthority ? [0x30, 0x03, 0x01, 0x01, 0xFF] : [0x30, 0x00]
                try Self.add(Extension(oid: "2.5.29.19", critical: true, value: value), to: certificate)
            }
            for entry in extensions {
                try Self.add(entry, to: certificate)
            }
        }
        let baseType = EVP_PKEY_get_base_id(issuerKey.key)
        let digest = baseType == EVP_PKEY_ED25519 || baseType == EVP_PKEY_ED448 ? nil : EVP_sha256()
        guard X509_sign(certificate, issuerKey.key, digest) > 0 else { throw failure("signing the certificate failed") }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &output)
        guard length > 0, let output else { throw failure("certificate encoding failed") }
        defer { pk_OPENSSL_free(output) }
        return try X509Certificate(der: Array(UnsafeBufferPointer(start: output, count: Int(length))))
    }

    private func failure(_ reason: String) -> CryptoError {
        ERR_clear_error()
        return CryptoError(.internalFailure, reason)
    }

    /// Adds each attribute as written: the value is stored as a UTF8String without OpenSSL's per-attribute
    /// size table, so that deliberately malformed names (a three-letter country) can be built.
    private static func fill(_ name: OpaquePointer?, with attributes: [NameAttribute]) throws(CryptoError) {
        guard let name else { throw CryptoError(.internalFailure, "certificate has no name to fill") }
        for attribute in attributes {
            let bytes = Array(attribute.value.utf8)
            let status = bytes.withUnsafeBufferPointer { value in
                X509_NAME_add_entry_by_txt(name, attribute.attribute, V_ASN1_UTF8STRING, value.baseAddress, Int32(value.count), -1, 0)
            }
            guard status == 1 else {
                ERR_clear_error()
                throw CryptoError(.unsupported, "name attribute \(attribute.attribute) is not known to OpenSSL")
            }
        }
    }

    private static func add(_ entry: Extension, to certificate: OpaquePointer) throws(CryptoError) {
        guard let object = OBJ_txt2obj(entry.oid, 1) else {
            ERR_clear_error()
            throw CryptoError(.unsupported, "extension OID \(entry.oid) is not a dotted OID")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let data = ASN1_OCTET_STRING_new() else { throw CryptoError(.internalFailure, "ASN1_OCTET_STRING_new failed") }
        defer { ASN1_OCTET_STRING_free(data) }
        let stored = entry.value.withUnsafeBufferPointer { ASN1_OCTET_STRING_set(data, $0.baseAddress, Int32($0.count)) }
        guard stored == 1, let created = X509_EXTENSION_create_by_OBJ(nil, object, entry.critical ? 1 : 0, data) else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "extension \(entry.oid) could not be created")
        }
        defer { X509_EXTENSION_free(created) }
        guard X509_add_ext(certificate, created, -1) == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "extension \(entry.oid) could not be added")
        }
    }
}
