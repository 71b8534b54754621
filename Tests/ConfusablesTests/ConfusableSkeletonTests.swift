import Confusables
import Testing

/// UTS #39 through ICU: skeletons make look-alikes equal and keep different names apart; mixed scripts are told from
/// single-script names and from the mixes the Highly Restrictive level allows.
struct ConfusableSkeletonTests {
    @Test func lookAlikesHaveOneSkeleton() throws {
        let latin = try #require(ConfusableSkeleton.of("paypal"))
        // U+0440 CYRILLIC SMALL LETTER ER and U+0430 CYRILLIC SMALL LETTER A, the attack of issue 43 item 8.
        #expect(ConfusableSkeleton.of("\u{440}\u{430}ypal") == latin)
        // Wholly Cyrillic ѕ с о р е, one script, yet the same skeleton as the Latin name.
        #expect(ConfusableSkeleton.of("\u{455}\u{441}\u{43E}\u{440}\u{435}") == ConfusableSkeleton.of("scope"))
        #expect(!ConfusableSkeleton.mixesScripts("\u{455}\u{441}\u{43E}\u{440}\u{435}"))
        #expect(ConfusableSkeleton.of("rn") == ConfusableSkeleton.of("m"))
        #expect(ConfusableSkeleton.of("alice") != ConfusableSkeleton.of("alicia"))
    }

    @Test func mixedScriptsAreToldApart() {
        #expect(ConfusableSkeleton.mixesScripts("\u{440}\u{430}ypal"), "Cyrillic with Latin")
        #expect(ConfusableSkeleton.mixesScripts("p\u{3B1}ypal"), "Greek with Latin")
        #expect(ConfusableSkeleton.mixesScripts("12\u{663}"), "Arabic-Indic digits with ASCII digits")
        for name in ["paypal", "josé", "alice@example.com", "Ada Lovelace", "山田taro", "\u{440}\u{430}\u{443}", "ελένη", "user_42"] {
            #expect(!ConfusableSkeleton.mixesScripts(name), "\(name)")
        }
    }

    @Test func textBeyondTheBoundIsRefused() {
        let long = String(repeating: "a", count: ConfusableSkeleton.maximumBytes + 1)
        #expect(ConfusableSkeleton.of(long) == nil)
        #expect(ConfusableSkeleton.mixesScripts(long))
        #expect(ConfusableSkeleton.of(String(repeating: "a", count: ConfusableSkeleton.maximumBytes)) != nil)
    }
}
