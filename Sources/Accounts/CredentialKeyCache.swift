import Synchronization
import WebAuthnCore

/// Parsed COSE keys by credential ID, so that an assertion costs one signature verification and no key parsing.
/// Bounded: when full, it is emptied and refilled by use.
package final class CredentialKeyCache: Sendable {
    private let keys = Mutex<[[UInt8]: COSEKey]>([:])
    private let capacity: Int

    package init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    package func key(for credentialID: [UInt8], encoded: [UInt8]) throws(WebAuthnError) -> COSEKey {
        if let cached = keys.withLock({ $0[credentialID] }), cached.encoded == encoded { return cached }
        let parsed = try COSEKey(bytes: encoded)
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[credentialID] = parsed
        }
        return parsed
    }

    package func remove(_ credentialID: [UInt8]) {
        _ = keys.withLock { $0.removeValue(forKey: credentialID) }
    }
}
