import COpenSSL

/// OpenSSL signing on its own, the way `openssl speed` measures it: one reused context and a digest computed in
/// advance (EdDSA, which has no prehash: one `EVP_DigestSign` of the message on a fresh context). The token
/// benchmark reports minting as a ratio of this. Not thread-safe: one thread per instance.
package final class ReferenceSigner {
    private let context: OpaquePointer?
    private let key: PrivateKey
    private var signature: [UInt8]

    package init(key: PrivateKey, algorithm: JWSAlgorithm) throws(CryptoError) {
        self.key = key
        signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key.key)))
        guard let digest = algorithm.signatureAlgorithm.digest else {
            context = nil
            return
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.key, nil), EVP_PKEY_sign_init(context) == 1 else {
            throw CryptoError(.internalFailure, "EVP_PKEY_sign_init failed")
        }
        if algorithm == .rs256 { _ = EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) }
        guard EVP_PKEY_CTX_set_signature_md(context, digest.messageDigest) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw CryptoError(.internalFailure, "EVP_PKEY_CTX_set_signature_md failed")
        }
        self.context = context
    }

    deinit { EVP_PKEY_CTX_free(context) }

    /// Signs `input`: the digest for ES256 and RS256, the message for EdDSA. True when OpenSSL signed.
    package func sign(_ input: [UInt8]) -> Bool {
        var length = signature.count
        guard let context else {
            guard let digestContext = EVP_MD_CTX_new() else { return false }
            defer { EVP_MD_CTX_free(digestContext) }
            guard EVP_DigestSignInit(digestContext, nil, nil, nil, key.key) == 1 else { return false }
            return EVP_DigestSign(digestContext, &signature, &length, input, input.count) == 1
        }
        return EVP_PKEY_sign(context, &signature, &length, input, input.count) == 1
    }
}
