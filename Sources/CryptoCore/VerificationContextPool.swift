import COpenSSL
import Synchronization

/// A few idle `EVP_PKEY_CTX`s per signature algorithm: creating one costs more than an RSA verification's
/// arithmetic, and OpenSSL contexts may be reused but not shared, so each call takes one and gives it back.
final class VerificationContextPool: Sendable {
    private struct Idle: @unchecked Sendable {
        var contexts: [SignatureAlgorithm: [OpaquePointer]] = [:]
    }

    private static let capacity = 8
    private let idle = Mutex(Idle())

    func take(_ algorithm: SignatureAlgorithm) -> OpaquePointer? {
        idle.withLock { $0.contexts[algorithm]?.popLast() }
    }

    func give(_ context: OpaquePointer, for algorithm: SignatureAlgorithm) {
        let kept = idle.withLock { idle -> Bool in
            guard idle.contexts[algorithm, default: []].count < Self.capacity else { return false }
            idle.contexts[algorithm, default: []].append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }

    deinit {
        idle.withLock { idle in
            for context in idle.contexts.values.joined() { EVP_PKEY_CTX_free(context) }
        }
    }
}
