import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 times in UTC, from `gmtime_r` instead of a Foundation formatter (an `ISO8601DateFormatter` costs 74 µs to
/// make): the whole seconds of the server's JSON bodies, as `JSONEncoder`'s `.iso8601` writes them
/// (`2026-12-01T10:15:30Z`, the time truncated to its second), and the milliseconds of log lines and webhook bodies
/// (`2026-12-01T10:15:30.123Z`, rounded to the millisecond).
public enum RFC3339Timestamp {
    /// The time truncated to the whole second, as `JSONEncoder.DateEncodingStrategy.iso8601` writes it.
    public static func seconds(_ date: Date) -> String {
        text(wholeSeconds: Int64(date.timeIntervalSince1970.rounded(.down)), millisecond: nil)
    }

    /// The time rounded to the millisecond.
    public static func milliseconds(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return text(wholeSeconds: remainder < 0 ? seconds - 1 : seconds, millisecond: remainder < 0 ? remainder + 1000 : remainder)
    }

    private static func text(wholeSeconds: Int64, millisecond: Int64?) -> String {
        var seconds = time_t(wholeSeconds)
        var fields = tm()
        gmtime_r(&seconds, &fields)
        var text = [UInt8]()
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var value = value
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                value %= divisor
                divisor /= 10
            }
        }
        append(Int(fields.tm_year) + 1900, width: 4)
        text.append(UInt8(ascii: "-"))
        append(Int(fields.tm_mon) + 1, width: 2)
        text.append(UInt8(ascii: "-"))
        append(Int(fields.tm_mday), width: 2)
        text.append(UInt8(ascii: "T"))
        append(Int(fields.tm_hour), width: 2)
        text.append(UInt8(ascii: ":"))
        append(Int(fields.tm_min), width: 2)
        text.append(UInt8(ascii: ":"))
        append(Int(fields.tm_sec), width: 2)
        if let millisecond {
            text.append(UInt8(ascii: "."))
            append(Int(millisecond), width: 3)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }
}
