#if canImport(Glibc)
import Glibc
#endif

/// The IMF-fixdate text for the `Date` header, recomputed at most once per second.
/// One instance per event loop; only that loop's thread uses it. The static functions write and read the IMF-fixdate
/// of any time, for `Last-Modified` and `If-Modified-Since`.
public final class HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private var cachedSecond: time_t = -1
    private var cachedText = ""

    /// The current time, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
    func now() -> String {
        let second = time(nil)
        if second != cachedSecond {
            cachedSecond = second
            cachedText = Self.format(Int(second))
        }
        return cachedText
    }

    /// Formats a Unix time (seconds) without depending on the C locale.
    public static func format(_ second: Int) -> String {
        var value = time_t(second)
        var parts = tm()
        gmtime_r(&value, &parts)
        func twoDigits(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }

    /// The Unix time of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), or nil for anything else.
    /// The obsolete RFC 850 and asctime forms are not read: a condition whose date cannot be read is ignored (§13.1.3),
    /// which costs a full answer, never a wrong 304.
    public static func parse(_ text: String) -> Int? {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), weekdays.contains(String(fields[0].dropLast())),
            fields[5] == "GMT", fields[1].count == 2, let day = Int(fields[1]), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: String(fields[2])), fields[3].count == 4, let year = Int(fields[3]), year >= 1970
        else { return nil }
        let clock = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }), let hour = Int(clock[0]), let minute = Int(clock[1]),
            let second = Int(clock[2]), hour < 24, minute < 60, second < 60
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let time = timegm(&parts)
        // timegm normalises 31 February into March, and the weekday must be the date's: only a date that round-trips is one.
        guard time >= 0, format(Int(time)) == text else { return nil }
        return Int(time)
    }
}
