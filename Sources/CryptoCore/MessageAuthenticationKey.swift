import COpenSSL
import Synchronization

/// An HMAC key (RFC 2104) through OpenSSL: the sealed sign-in challenges, the decoy credentials and the signatures of
/// outbound webhooks (Standard Webhooks' `v1`, HMAC-SHA256).
///
/// OpenSSL's one-shot `HMAC()` fetches the implementation and keys a new context on every call (2.6 µs for a short
/// message on this machine, against 0.4 µs for a keyed context started again). So the key is set once, in a context
/// that is only ever copied; each call takes an idle copy, or makes one, restarts it (`EVP_MAC_init` without a key
/// keeps the key) and gives it back. Contexts may be reused but not shared. Their key bytes are wiped when freed.
public final class MessageAuthenticationKey: Sendable {
    private struct Contexts: @unchecked Sendable {
        let keyed: OpaquePointer
        var idle: [OpaquePointer] = []
    }

    private static let idleCapacity = 8
    public let digest: DigestAlgorithm
    private let contexts: Mutex<Contexts>

    public init(_ digest: DigestAlgorithm = .sha256, key: [UInt8]) {
        let keyed = key.withUnsafeBufferPointer { bytes in pk_hmac_context(bytes.baseAddress, bytes.count, digest.rawValue.uppercased()) }
        guard let keyed else { fatalError("OpenSSL refused an HMAC-\(digest.rawValue) key") }
        self.digest = digest
        contexts = Mutex(Contexts(keyed: keyed))
    }

    deinit {
        contexts.withLock { contexts in
            for context in contexts.idle { EVP_MAC_CTX_free(context) }
            EVP_MAC_CTX_free(contexts.keyed)
        }
    }

    /// The HMAC of `message` under this key.
    public func authenticate(_ message: [UInt8]) -> [UInt8] {
        let context = contexts.withLock { contexts in contexts.idle.popLast() ?? EVP_MAC_CTX_dup(contexts.keyed) }
        guard let context else { fatalError("OpenSSL could not copy an HMAC context") }
        let length = digest.outputLength
        let output = [UInt8](unsafeUninitializedCapacity: length) { output, count in
            var written = 0
            let status = message.withUnsafeBufferPointer { bytes in
                EVP_MAC_init(context, nil, 0, nil) == 1 && EVP_MAC_update(context, bytes.baseAddress, bytes.count) == 1
                    && EVP_MAC_final(context, output.baseAddress, &written, length) == 1
            }
            precondition(status && written == length, "HMAC-\(digest.rawValue) failed")
            count = length
        }
        let kept = contexts.withLock { contexts in
            guard contexts.idle.count < Self.idleCapacity else { return false }
            contexts.idle.append(context)
            return true
        }
        if !kept { EVP_MAC_CTX_free(context) }
        return output
    }
}
