import Foundation

/// ISO 8601 times as configuration, test cases, FIDO metadata and the command line write them (RFC 3339 internet
/// date-times such as `2021-03-01T12:00:00Z`, with or without fractional seconds).
public enum ISO8601Time {
    /// An internet date-time, with or without fractional seconds; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// A full date `YYYY-MM-DD` (midnight UTC), or an internet date-time as `parse` reads it.
    public static func parseDateOrTime(_ text: String) -> Date? {
        // The time first: a full-date formatter reads the date of a date-time and drops its time.
        if let date = parse(text) { return date }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
