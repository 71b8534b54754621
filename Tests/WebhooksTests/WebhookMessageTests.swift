import Foundation
import Observability
import Testing

/// The `timestamp` of a webhook body: RFC 3339 in UTC with milliseconds, as Foundation's `ISO8601DateFormatter`
/// writes it (the reference here), without a formatter per delivery.
struct WebhookMessageTests {
    static func reference(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    @Test(arguments: [
        0, 0.0004, 0.0005, 0.9995, 59.9996, 951_782_400, 1_709_164_800.25, 1_764_584_130.123, 1_767_225_599.9999,
        4_102_444_799.999,
    ])
    func aTimestampIsTheFormattersRounding(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(RFC3339Timestamp.milliseconds(date) == Self.reference(date), "\(seconds)")
    }

    @Test func manyTimesFormatAsTheFormatterDoes() {
        // A fixed linear congruential sequence: millisecond times, as the outbox stores them, and arbitrary doubles.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var mismatches: [String] = []
        for index in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let milliseconds = Double(state >> 22 % 4_102_444_800_000)
            let seconds = index % 2 == 0 ? milliseconds / 1000 : Double(state >> 11) / Double(1 << 53) * 4_102_444_800
            let date = Date(timeIntervalSince1970: seconds)
            if RFC3339Timestamp.milliseconds(date) != Self.reference(date) { mismatches.append("\(seconds)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
