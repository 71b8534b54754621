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

    deinit {
        idle.withLock { idle in
            for entry in idle.contexts { EVP_PKEY_CTX_free(entry.context) }
        }
    }
}
