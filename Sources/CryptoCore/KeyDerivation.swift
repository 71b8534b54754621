import COpenSSL

/// HKDF (RFC 5869) with SHA-256 through OpenSSL's `EVP_KDF`: derives keys for separate purposes from one secret,
/// each purpose naming itself in `info` so that no two derive the same key.
public enum KeyDerivation {
    /// `length` bytes (at most 255 × 32) of HKDF-SHA256 output keying material.
    public static func hkdfSHA256(secret: [UInt8], salt: [UInt8] = [], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard !secret.isEmpty, length > 0, length <= 255 * 32 else { throw CryptoError(.invalidKey, "HKDF needs a secret and 1 to 8160 bytes") }
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw CryptoError(.internalFailure, "OpenSSL has no HKDF") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw CryptoError(.internalFailure, "EVP_KDF_CTX_new failed") }
        defer { EVP_KDF_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: length)
        var secret = secret
        var salt = salt
        var info = info
        let status = "SHA256".withCString { digest in
            secret.withUnsafeMutableBytes { secretBytes in
                salt.withUnsafeMutableBytes { saltBytes in
                    info.withUnsafeMutableBytes { infoBytes in
                        var parameters = [
                            OSSL_PARAM_construct_utf8_string(PK_KDF_PARAM_DIGEST, UnsafeMutablePointer(mutating: digest), 0),
                            OSSL_PARAM_construct_octet_string(PK_KDF_PARAM_KEY, secretBytes.baseAddress, secretBytes.count),
                            OSSL_PARAM_construct_octet_string(PK_KDF_PARAM_SALT, saltBytes.baseAddress, saltBytes.count),
                            OSSL_PARAM_construct_octet_string(PK_KDF_PARAM_INFO, infoBytes.baseAddress, infoBytes.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return output.withUnsafeMutableBufferPointer { out in
                            EVP_KDF_derive(context, out.baseAddress, out.count, &parameters)
                        }
                    }
                }
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "HKDF derivation failed")
        }
        return output
    }
}
