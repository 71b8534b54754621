import CryptoCore
import Foundation
import Testing

@Suite("ISO 8601 times")
struct ISO8601TimeTests {
    @Test func internetDateTimesWithAndWithoutFractions() {
        #expect(ISO8601Time.parse("2021-03-01T12:00:00Z") == Date(timeIntervalSince1970: 1_614_600_000))
        let fraction = ISO8601Time.parse("2021-03-01T12:00:00.250Z")?.timeIntervalSince1970 ?? 0
        #expect(abs(fraction - 1_614_600_000.25) < 0.001)
        #expect(ISO8601Time.parse("2021-03-01T14:00:00+02:00") == Date(timeIntervalSince1970: 1_614_600_000))
    }

    @Test(arguments: ["", "2021-03-01", "2021-03-01 12:00:00Z", "yesterday", "2021-13-01T12:00:00Z"])
    func refusesOtherText(_ text: String) {
        #expect(ISO8601Time.parse(text) == nil)
    }

    @Test func dateOrTimeTakesAFullDateAsMidnightUTC() {
        #expect(ISO8601Time.parseDateOrTime("2021-03-01") == Date(timeIntervalSince1970: 1_614_556_800))
        #expect(ISO8601Time.parseDateOrTime("2021-03-01T12:00:00Z") == Date(timeIntervalSince1970: 1_614_600_000))
        #expect(ISO8601Time.parseDateOrTime("March 1st") == nil)
    }
}
