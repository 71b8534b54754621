import COpenSSL

/// A private key held as an OpenSSL `EVP_PKEY`: for the software authenticator in tests, benchmarks,
/// self-signed certificates and client secrets. Never logged.
public final class PrivateKey: @unchecked Sendable {
    let key: OpaquePointer

    private init(owning key: OpaquePointer) {
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// A new EC key on `curve`.
    public static func generateEC(_ curve: EllipticCurve) throws(CryptoError) -> PrivateKey {
        guard let key = curve.openSSLName.withCString({ pk_EVP_EC_gen($0) }) else { throw CryptoError(.internalFailure, "EC key generation failed") }
        return PrivateKey(owning: key)
    }

    /// A new RSA key of `bits` bits (public exponent 65537).
    public static func generateRSA(bits: Int) throws(CryptoError) -> PrivateKey {
        guard let key = pk_EVP_RSA_gen(UInt32(bits)) else { throw CryptoError(.internalFailure, "RSA key generation failed") }
        return PrivateKey(owning: key)
    }

    /// A new Ed25519 or Ed448 key.
    public static func generateEdwards(_ type: PublicKey.KeyType) throws(CryptoError) -> PrivateKey {
        let name: String
        switch type {
        case .ed25519: name = "ED25519"
        case .ed448: name = "ED448"
        default: throw CryptoError(.unsupported, "not an Edwards-curve key type")
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw CryptoError(.internalFailure, "EVP_PKEY_CTX_new_from_name failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError(.internalFailure, "\(name) key generation failed")
        }
        return PrivateKey(owning: key)
    }

    /// A private key from PEM (PKCS#8 "PRIVATE KEY", or the traditional EC/RSA forms).
    public static func fromPEM(_ pem: String) throws(CryptoError) -> PrivateKey {
        let key: OpaquePointer? = pem.withCString { text in
            guard let bio = BIO_new_mem_buf(text, -1) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else {
            ERR_clear_error()
            throw CryptoError(.invalidKey, "private key PEM could not be read")
        }
        return PrivateKey(owning: key)
    }

    /// PKCS#8 PEM of this key.
    public func pem() throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError(.internalFailure, "BIO_new failed") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw CryptoError(.internalFailure, "PEM write failed") }
        var data: UnsafeMutablePointer<CChar>?
        let length = pk_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw CryptoError(.internalFailure, "PEM write produced nothing") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The matching public key.
    public func publicKey() throws(CryptoError) -> PublicKey {
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &output)
        guard length > 0, let output else { throw CryptoError(.internalFailure, "public key export failed") }
        defer { pk_OPENSSL_free(output) }
        return try PublicKey(subjectPublicKeyInfo: Array(UnsafeBufferPointer(start: output, count: Int(length))))
    }

    /// Signs `message` (ECDSA signatures come out in DER).
    public func sign(_ message: [UInt8], algorithm: SignatureAlgorithm) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(.internalFailure, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestSignInit(context, &keyContext, algorithm.digest?.messageDigest, nil, key) == 1 else {
            ERR_clear_error()
            throw CryptoError(.invalidKey, "key cannot sign with \(algorithm.rawValue)")
        }
        if algorithm.usesPSSPadding {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, RSA_PSS_SALTLEN_DIGEST) == 1
            else { throw CryptoError(.internalFailure, "PSS parameters rejected") }
        }
        var length = 0
        let status = message.withUnsafeBufferPointer { input -> Int32 in
            guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else { return 0 }
            return 1
        }
        guard status == 1 else { throw CryptoError(.internalFailure, "signature length query failed") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard signed == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "signing failed")
        }
        return Array(signature.prefix(length))
    }
}
