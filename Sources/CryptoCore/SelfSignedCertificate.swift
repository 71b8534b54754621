import COpenSSL
import Foundation

/// Development and first-start TLS material: an EC P-256 key and a self-signed X.509 v3 certificate.
public enum SelfSignedCertificate {
    /// Validity of a generated certificate.
    private static let validitySeconds = 365 * 24 * 60 * 60

    /// If both files exist, leaves them untouched. Otherwise generates an EC P-256 key and a
    /// self-signed X.509 v3 certificate (CN = first host name, a subjectAltName `DNS:` or `IP:` entry per
    /// name, valid one year from `now`, random serial) and writes both as PEM, creating the folders.
    /// The key file gets mode 0600.
    public static func ensure(certificateFile: String, privateKeyFile: String, hostNames: [String], now: Date) throws(CryptoError) {
        let files = FileManager.default
        if files.fileExists(atPath: certificateFile) && files.fileExists(atPath: privateKeyFile) {
            return
        }
        guard let commonName = hostNames.first, !commonName.isEmpty else {
            throw CryptoError(.generationFailed, "at least one host name is needed")
        }
        ERR_clear_error()
        guard let key = pk_EVP_EC_gen("P-256") else {
            throw CryptoError(.generationFailed, "EC key generation failed: \(TLSServerContext.takeOpenSSLError())")
        }
        defer { EVP_PKEY_free(key) }
        let certificate = try makeCertificate(key: key, commonName: commonName, hostNames: hostNames, now: now)
        defer { X509_free(certificate) }

        let keyPEM = try pemBytes { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) }
        let certificatePEM = try pemBytes { bio in PEM_write_bio_X509(bio, certificate) }
        try write(keyPEM, to: privateKeyFile, mode: 0o600)
        try write(certificatePEM, to: certificateFile, mode: 0o644)
    }

    private static func makeCertificate(key: OpaquePointer, commonName: String, hostNames: [String], now: Date) throws(CryptoError) -> OpaquePointer {
        guard let certificate = X509_new() else {
            throw CryptoError(.generationFailed, "X509_new failed")
        }
        do throws(CryptoError) {
            guard X509_set_version(certificate, 2) == 1 else { throw CryptoError(.generationFailed, "cannot set the version") }
            try setRandomSerial(certificate)
            let start = time_t(now.timeIntervalSince1970.rounded(.down))
            guard ASN1_TIME_set(X509_getm_notBefore(certificate), start) != nil,
                ASN1_TIME_set(X509_getm_notAfter(certificate), start + time_t(validitySeconds)) != nil
            else {
                throw CryptoError(.generationFailed, "cannot set the validity period")
            }
            guard let name = X509_get_subject_name(certificate),
                X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1,
                X509_set_issuer_name(certificate, name) == 1
            else {
                throw CryptoError(.generationFailed, "cannot set the subject name: \(TLSServerContext.takeOpenSSLError())")
            }
            guard X509_set_pubkey(certificate, key) == 1 else {
                throw CryptoError(.generationFailed, "cannot set the public key")
            }
            let alternativeNames = hostNames.map { isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
            try addExtension(certificate, NID_basic_constraints, "critical,CA:FALSE")
            try addExtension(certificate, NID_key_usage, "critical,digitalSignature")
            try addExtension(certificate, NID_ext_key_usage, "serverAuth")
            try addExtension(certificate, NID_subject_key_identifier, "hash")
            try addExtension(certificate, NID_subject_alt_name, alternativeNames)
            guard X509_sign(certificate, key, EVP_sha256()) > 0 else {
                throw CryptoError(.generationFailed, "signing failed: \(TLSServerContext.takeOpenSSLError())")
            }
        } catch {
            X509_free(certificate)
            throw error
        }
        return certificate
    }

    /// A positive 127-bit serial from OpenSSL's RAND.
    private static func setRandomSerial(_ certificate: OpaquePointer) throws(CryptoError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
            throw CryptoError(.generationFailed, "RAND_bytes failed")
        }
        bytes[0] &= 0x7f
        bytes[0] |= 0x01
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw CryptoError(.generationFailed, "BN_bin2bn failed")
        }
        defer { BN_free(number) }
        guard let serial = BN_to_ASN1_INTEGER(number, nil) else {
            throw CryptoError(.generationFailed, "BN_to_ASN1_INTEGER failed")
        }
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(certificate, serial) == 1 else {
            throw CryptoError(.generationFailed, "cannot set the serial number")
        }
    }

    private static func addExtension(_ certificate: OpaquePointer, _ nid: Int32, _ value: String) throws(CryptoError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        guard let extensionEntry = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
            throw CryptoError(.generationFailed, "cannot build extension \(nid) from \(value): \(TLSServerContext.takeOpenSSLError())")
        }
        defer { X509_EXTENSION_free(extensionEntry) }
        guard X509_add_ext(certificate, extensionEntry, -1) == 1 else {
            throw CryptoError(.generationFailed, "cannot add extension \(nid)")
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var address4 = in_addr()
        var address6 = in6_addr()
        return inet_pton(AF_INET, name, &address4) == 1 || inet_pton(AF_INET6, name, &address6) == 1
    }

    /// Runs a PEM writer against a memory BIO and returns what it wrote.
    private static func pemBytes(_ writer: (OpaquePointer) -> Int32) throws(CryptoError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError(.generationFailed, "BIO_new failed")
        }
        defer { BIO_free(bio) }
        guard writer(bio) == 1 else {
            throw CryptoError(.generationFailed, "PEM encoding failed: \(TLSServerContext.takeOpenSSLError())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = pk_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else {
            throw CryptoError(.generationFailed, "PEM encoding produced no data")
        }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Writes through a temporary file created with `mode`, then renames it into place.
    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(CryptoError) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CryptoError(.generationFailed, "cannot create \(folder): \(error)")
            }
        }
        let temporaryPath = path + ".tmp"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw CryptoError(.generationFailed, "cannot create \(temporaryPath): \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let permissionsSet = fchmod(descriptor, mode) == 0
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, permissionsSet, synced, rename(temporaryPath, path) == 0 else {
            unlink(temporaryPath)
            throw CryptoError(.generationFailed, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
