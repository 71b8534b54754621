import CryptoCore
import Synchronization

/// Request IDs: the client's or proxy's `X-Request-Id` when it is safe to log and echo (1 to 128 characters of
/// letters, digits and `-_.:/+=`), otherwise a new one: a random per-process prefix and a counter, unique across
/// nodes and restarts without a random draw per request.
final class RequestIDs: Sendable {
    /// The longest `X-Request-Id` taken.
    static let maximumLength = 128

    /// The prefix's characters, then "-".
    private let prefix: [UInt8]
    private let counter = Atomic<UInt64>(0)

    /// The most base-36 digits of a `UInt64`.
    private static let maximumDigits = 13
    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)

    init(random: any RandomSource) {
        prefix = Array(Base64URL.encode(random.bytes(count: 9)).utf8) + [UInt8(ascii: "-")]
    }

    /// The request's ID: `offered` when valid, else a new one: the prefix, "-" and the counter in base 36, written in
    /// place (one string, no intermediate ones: this runs for every request).
    func id(offered: String?) -> String {
        if let offered, Self.isValid(offered) { return offered }
        var number = counter.add(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: prefix.count + Self.maximumDigits) { buffer in
            _ = buffer.initialize(from: prefix)
            // The digits least significant first, then turned around.
            var count = prefix.count
            repeat {
                buffer[count] = Self.digits[Int(number % 36)]
                count += 1
                number /= 36
            } while number > 0
            buffer[prefix.count..<count].reverse()
            return count
        }
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
