#if canImport(Glibc)
import Glibc
#endif

/// The IMF-fixdate text for the `Date` header, recomputed at most once per second.
/// One instance per event loop; only that loop's thread uses it.
final class HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private var cachedSecond: time_t = -1
    private var cachedText = ""

    /// The current time, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
    func now() -> String {
        let second = time(nil)
        if second != cachedSecond {
            cachedSecond = second
            cachedText = Self.format(second)
        }
        return cachedText
    }

    /// Formats a Unix time without depending on the C locale.
    static func format(_ second: time_t) -> String {
        var value = second
        var parts = tm()
        gmtime_r(&value, &parts)
        func twoDigits(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
