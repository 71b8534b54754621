import COpenSSL
import Foundation

/// An X.509 certificate parsed by OpenSSL. Immutable; safe to share across threads.
public final class X509Certificate: @unchecked Sendable {
    let certificate: OpaquePointer
    /// The DER encoding the certificate was parsed from.
    public let der: [UInt8]

    /// Parses one DER certificate; trailing bytes fail.
    public init(der: [UInt8]) throws(CryptoError) {
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            let consumed = cursor.map { $0 - buffer.baseAddress! } ?? 0
            return (certificate, consumed)
        }
        guard let certificate = parsed.0 else {
            ERR_clear_error()
            throw CryptoError(.invalidCertificate, "certificate is not valid DER X.509")
        }
        guard parsed.1 == der.count else {
            X509_free(certificate)
            throw CryptoError(.invalidCertificate, "certificate has trailing bytes")
        }
        self.certificate = certificate
        self.der = der
    }

    /// Parses every certificate of a PEM text, in order.
    public static func certificates(pem: String) throws(CryptoError) -> [X509Certificate] {
        var result: [X509Certificate] = []
        var body: String?
        for line in pem.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                guard let text = body, let der = Base64URL.decodeLenient(text) else {
                    throw CryptoError(.invalidCertificate, "PEM certificate body is not base64")
                }
                result.append(try X509Certificate(der: der))
                body = nil
            } else if body != nil {
                body! += trimmed
            }
        }
        guard !result.isEmpty else { throw CryptoError(.invalidCertificate, "no PEM certificate found") }
        return result
    }

    deinit { X509_free(certificate) }

    /// X.509 version as written (1, 2 or 3).
    public var version: Int { Int(X509_get_version(certificate)) + 1 }

    /// The subject's attributes in order, as (OID in dotted form, UTF-8 value).
    public var subject: [(oid: String, value: String)] { Self.entries(of: X509_get_subject_name(certificate)) }

    /// The issuer's attributes in order.
    public var issuer: [(oid: String, value: String)] { Self.entries(of: X509_get_issuer_name(certificate)) }

    /// Values of one subject attribute, by dotted OID (e.g. "2.5.4.3" for CN).
    public func subjectValues(_ oid: String) -> [String] { subject.filter { $0.oid == oid }.map(\.value) }

    public var notBefore: Date? { Self.date(X509_get0_notBefore(certificate)) }
    public var notAfter: Date? { Self.date(X509_get0_notAfter(certificate)) }

    /// The subject public key.
    public func publicKey() throws(CryptoError) -> PublicKey {
        guard let key = X509_get_pubkey(certificate) else { throw CryptoError(.invalidKey, "certificate public key is unreadable") }
        return try PublicKey(owning: key)
    }

    /// An extension's DER value (the contents of its OCTET STRING) and criticality, by dotted OID; nil when absent.
    public func extensionValue(_ oid: String) -> (critical: Bool, value: [UInt8])? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let extensionEntry = X509_get_ext(certificate, index),
            let data = X509_EXTENSION_get_data(extensionEntry)
        else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))))
        return (X509_EXTENSION_get_critical(extensionEntry) == 1, bytes)
    }

    /// Number of times an extension with this OID occurs.
    public func extensionCount(_ oid: String) -> Int {
        guard let object = OBJ_txt2obj(oid, 1) else { return 0 }
        defer { ASN1_OBJECT_free(object) }
        var count = 0
        var index = X509_get_ext_by_OBJ(certificate, object, -1)
        while index >= 0 {
            count += 1
            index = X509_get_ext_by_OBJ(certificate, object, index)
        }
        return count
    }

    /// The Basic Constraints cA flag: nil when the extension is absent, otherwise its value.
    public var basicConstraintsCA: Bool? {
        var critical: Int32 = 0
        guard let raw = X509_get_ext_d2i(certificate, NID_basic_constraints, &critical, nil) else {
            ERR_clear_error()
            return nil
        }
        let constraints = raw.assumingMemoryBound(to: BASIC_CONSTRAINTS.self)
        defer { BASIC_CONSTRAINTS_free(constraints) }
        return constraints.pointee.ca != 0
    }

    /// Extended key usage OIDs in dotted form; empty when the extension is absent.
    public var extendedKeyUsages: [String] {
        guard let raw = X509_get_ext_d2i(certificate, NID_ext_key_usage, nil, nil) else {
            ERR_clear_error()
            return []
        }
        let usages = OpaquePointer(raw)
        defer { pk_EXTENDED_KEY_USAGE_free(usages) }
        return (0..<pk_sk_ASN1_OBJECT_num(usages)).compactMap { Self.oidText(pk_sk_ASN1_OBJECT_value(usages, $0)) }
    }

    /// Directory-name entries of the Subject Alternative Name, flattened to (OID, value) pairs.
    public var subjectAlternativeDirectoryNames: [(oid: String, value: String)] {
        let names: [[(oid: String, value: String)]] = generalNames { name in
            guard name.pointee.type == GEN_DIRNAME else { return nil }
            return Self.entries(of: name.pointee.d.directoryName)
        }
        return names.flatMap { $0 }
    }

    /// DNS names of the Subject Alternative Name.
    public var subjectAlternativeDNSNames: [String] {
        generalNames { name in
            guard name.pointee.type == GEN_DNS, let text = Self.utf8(UnsafePointer(name.pointee.d.dNSName)) else { return nil }
            return text
        }
    }

    /// SHA-256 of the DER encoding, as lowercase hex (for logs and trust-anchor listings).
    public var sha256Fingerprint: String {
        Hex.encode(DigestAlgorithm.sha256.hash(der))
    }

    /// True when the certificate's issuer equals its subject.
    public var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(certificate), X509_get_issuer_name(certificate)) == 0
    }

    private func generalNames<T>(_ transform: (UnsafeMutablePointer<GENERAL_NAME>) -> T?) -> [T] {
        guard let raw = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) else {
            ERR_clear_error()
            return []
        }
        let names = OpaquePointer(raw)
        defer { pk_GENERAL_NAMES_free(names) }
        return (0..<pk_sk_GENERAL_NAME_num(names)).compactMap { index in
            pk_sk_GENERAL_NAME_value(names, index).flatMap(transform)
        }
    }

    private static func entries(of name: OpaquePointer?) -> [(oid: String, value: String)] {
        guard let name else { return [] }
        return (0..<X509_NAME_entry_count(name)).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index),
                let oid = oidText(X509_NAME_ENTRY_get_object(entry)),
                let value = utf8(UnsafePointer(X509_NAME_ENTRY_get_data(entry)))
            else { return nil }
            return (oid, value)
        }
    }

    static func oidText(_ object: OpaquePointer?) -> String? {
        guard let object else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0, Int(length) < buffer.count else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func utf8(_ string: UnsafePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&output, string)
        guard length >= 0, let output else { return nil }
        defer { pk_OPENSSL_free(output) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(length)), as: UTF8.self)
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
