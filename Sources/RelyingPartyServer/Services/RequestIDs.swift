import CryptoCore
import Synchronization

/// Request IDs: the client's or proxy's `X-Request-Id` when it is safe to log and echo (1 to 128 characters of
/// letters, digits and `-_.:/+=`), otherwise a new one: a random per-process prefix and a counter, unique across
/// nodes and restarts without a random draw per request.
final class RequestIDs: Sendable {
    /// The longest `X-Request-Id` taken.
    static let maximumLength = 128

    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init(random: any RandomSource) {
        prefix = Base64URL.encode(random.bytes(count: 9))
    }

    /// The request's ID: `offered` when valid, else a new one.
    func id(offered: String?) -> String {
        if let offered, Self.isValid(offered) { return offered }
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 36)
    }

    static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        guard (1...maximumLength).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "+"), UInt8(ascii: "="):
                true
            default: false
            }
        }
    }
}
