import COpenSSL

/// OpenSSL verifying on its own, the way `openssl speed` measures it: one reused context, a digest computed in
/// advance. Benchmarks report passkeyd's rates as a ratio of this. Not thread-safe: one thread per instance.
package final class ReferenceVerifier {
    private let context: OpaquePointer
    private let key: PublicKey

    package init(key: PublicKey, algorithm: SignatureAlgorithm) throws(CryptoError) {
        guard let digest = algorithm.digest else { throw CryptoError(.unsupported, "the reference verifier measures prehashed schemes") }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.key, nil), EVP_PKEY_verify_init(context) == 1 else {
            throw CryptoError(.internalFailure, "EVP_PKEY_verify_init failed")
        }
        if key.type == .rsa {
            _ = EVP_PKEY_CTX_set_rsa_padding(context, algorithm.usesPSSPadding ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING)
        }
        guard EVP_PKEY_CTX_set_signature_md(context, digest.messageDigest) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError(.internalFailure, "EVP_PKEY_CTX_set_signature_md failed")
        }
        self.context = context
        self.key = key
    }

    deinit { EVP_PKEY_CTX_free(context) }

    package func verify(signature: [UInt8], digest: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { signatureBytes in
            digest.withUnsafeBufferPointer { digestBytes in
                EVP_PKEY_verify(context, signatureBytes.baseAddress, signatureBytes.count, digestBytes.baseAddress, digestBytes.count) == 1
            }
        }
    }
}
