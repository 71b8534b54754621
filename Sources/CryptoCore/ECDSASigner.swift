import COpenSSL

/// A P-256 private key that signs SHA-256 digests into the low-S JWS form `r || s` (RFC 7518 §3.4) with OpenSSL's
/// `ECDSA_do_sign`: the signature `EVP_PKEY_sign` computes, without the DER it encodes and the JWS form would parse
/// back (`make bench-core`'s `token-sign-es256`, `bench/runs/2026-12-07-night.md`).
///
/// `@unchecked Sendable`: the `EC_KEY` is the private key's legacy form, taken once here and freed with this signer;
/// signatures only read it, from any number of threads at once, as the default provider's `EVP_PKEY_sign` reads its
/// own `EC_KEY`.
final class ECDSASigner: @unchecked Sendable {
    private let key: OpaquePointer

    /// `privateKey` is a P-256 key (`JWSAlgorithm.es256.accepts` its public key); nil when it is not an EC key.
    init?(privateKey: PrivateKey) {
        guard let key = pk_EVP_PKEY_get1_EC_KEY(privateKey.key) else {
            ERR_clear_error()
            return nil
        }
        self.key = key
    }

    deinit { pk_EC_KEY_free(key) }

    /// The low-S `r || s` signature of `digest` (64 bytes); nil when OpenSSL fails.
    func sign(digest: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let signature = pk_ECDSA_do_sign(digest.baseAddress, Int32(digest.count), key) else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        // Only the low-S twin is issued (s ≤ n/2), so every token has one valid signature and verifiers of
        // passkeyd's own tokens refuse the other.
        return ECDSASignatureEncoding.lowSRaw(signature: signature, curve: .p256)
    }
}
