import COpenSSL
import Synchronization

/// A few idle `EVP_PKEY_CTX`s per key (verification or signing, never both in one pool): creating one costs more than an RSA verification's arithmetic, and OpenSSL
/// contexts may be reused but not shared, so each call takes one and gives it back. A key is nearly always used
/// with one algorithm, so a short list scanned from the end beats a dictionary.
final class KeyContextPool: Sendable {
    private struct Idle: @unchecked Sendable {
        var contexts: [(algorithm: SignatureAlgorithm, context: OpaquePointer)] = []
    }

    private static let capacity = 8
    private let idle = Mutex(Idle())

    func take(_ algorithm: SignatureAlgorithm) -> OpaquePointer? {
        idle.withLock { idle in
            guard let index = idle.contexts.lastIndex(where: { $0.algorithm == algorithm }) else { return nil }
            return idle.contexts.remove(at: index).context
        }
    }

    func give(_ context: OpaquePointer, for algorithm: SignatureAlgorithm) {
        let kept = idle.withLock { idle -> Bool in
            guard idle.contexts.count < Self.capacity else { return false }
            idle.contexts.append((algorithm, context))
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }

    /// A new context of `key` for `scheme` over a digest, for signing or for verifying: initialised, RSA padding set
    /// (PKCS #1 v1.5, or PSS with a digest-length salt), hash set; nil when OpenSSL refuses any of it.
    static func prepared(_ key: OpaquePointer, for scheme: SignatureAlgorithm, signing: Bool) -> OpaquePointer? {
        guard let digest = scheme.digest, let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        var ready = (signing ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context)) == 1
        if ready, scheme.keyType == .rsa {
            ready = EVP_PKEY_CTX_set_rsa_padding(context, scheme.usesPSSPadding ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING) == 1
            if ready, scheme.usesPSSPadding {
                ready = EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
            }
        }
        if ready { ready = EVP_PKEY_CTX_set_signature_md(context, digest.messageDigest) == 1 }
        guard ready else {
            ERR_clear_error()
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    deinit {
        idle.withLock { idle in
            for entry in idle.contexts { EVP_PKEY_CTX_free(entry.context) }
        }
    }
}
