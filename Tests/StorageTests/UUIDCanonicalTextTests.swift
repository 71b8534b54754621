import Foundation
import Storage
import Testing

/// The app account token's text, read and written without Foundation's parser: the same UUIDs and the same text as
/// `UUID(uuidString:)` and `uuidString.lowercased()`, and nothing but canonical text read (Foundation's `sscanf`
/// also reads a space before a digit: " 0123abcd-ef45-6789-abcd-0123456789e" is a UUID to it).
@Suite("UUID canonical text")
struct UUIDCanonicalTextTests {
    @Test func writesWhatFoundationWritesInLowercase() {
        for _ in 0..<200 {
            let uuid = UUID()
            #expect(uuid.lowercaseText == uuid.uuidString.lowercased())
        }
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).lowercaseText == "00000000-0000-0000-0000-000000000000")
        #expect(
            UUID(uuid: (0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)).lowercaseText
                == "ffffffff-ffff-ffff-ffff-ffffffffffff"
        )
    }

    @Test func readsWhatFoundationReadsInEitherCase() {
        for _ in 0..<200 {
            let uuid = UUID()
            #expect(UUID(canonicalText: uuid.uuidString) == uuid)
            #expect(UUID(canonicalText: uuid.lowercaseText) == uuid)
        }
        let mixed = "0123abcd-EF45-6789-aBcD-0123456789Ef"
        #expect(UUID(canonicalText: mixed) == UUID(uuidString: mixed))
        #expect(UUID(canonicalText: mixed) != nil)
    }

    @Test(arguments: [
        "",
        "0123abcd-ef45-6789-abcd-0123456789e",  // one digit short
        "0123abcd-ef45-6789-abcd-0123456789eff",  // one digit more
        "0123abcd-ef45-6789-abcd-0123456789ef-",
        "0123abcdef45-6789-abcd-0123456789ef0",  // a dash missing, the length kept
        "0123abc-def45-6789-abcd-0123456789ef",  // a dash one place early
        "0123abcd-ef45-6789-abcd-0123456789eg",  // not a hex digit
        "0123abcd_ef45_6789_abcd_0123456789ef",
        "{0123abcd-ef45-6789-abcd-0123456789ef}",
        " 0123abcd-ef45-6789-abcd-0123456789e",
        "0123abcd-ef45-6789-abcd-0123456789é",  // a two-byte character where a digit goes
    ])
    func refusesAnythingButCanonicalText(_ text: String) {
        #expect(UUID(canonicalText: text) == nil)
    }
}
