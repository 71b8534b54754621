import Confusables
import Foundation

extension UserRecord {
    /// The form in which usernames are compared: NFKC, then Unicode's default lowercase mapping (locale-independent:
    /// Swift's `lowercased()`), then NFKC again (lowercasing may leave a string that is not). `Frank`, `frank`,
    /// `FRANK` and `Ｆｒａｎｋ` are one name; `ß` stays `ß` (apart from `ss`, which is `SS`'s), as in RFC 8265's
    /// UsernameCaseMapped profile; the Turkish `ı` stays apart from `i`, and `İ` is `i` with U+0307 (apart from
    /// `I`'s `i`). Every driver stores it beside the name (unique), writes it on every insert and rename, and finds a
    /// user by it; the name as given stays the display form.
    public static func nameKey(of name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCompatibilityMapping
    }

    /// `name`'s comparison form (`nameKey(of:)`).
    public var nameKey: String { Self.nameKey(of: name) }

    /// The Unicode TS #39 confusable skeleton of a name's key: names that can be mistaken for each other (`paypal`,
    /// and `раураl` in Cyrillic letters) have one skeleton. Every driver stores it beside the name (indexed, not
    /// unique: names registered before it existed may share one) and finds users by it (`user(nameSkeleton:)`); a
    /// name whose text ICU cannot read keeps its key.
    public static func nameSkeleton(of name: String) -> String {
        let key = nameKey(of: name)
        return ConfusableSkeleton.of(key) ?? key
    }

    /// `name`'s skeleton (`nameSkeleton(of:)`).
    public var nameSkeleton: String { Self.nameSkeleton(of: name) }

    /// The name the migration that made names case-insensitive gives a later account whose name collides with an
    /// older one's: `name` with the first suffix `-2`, `-3` … whose key `isTaken` does not hold, shortened (whole
    /// characters) so that it has at most `maximumBytes` bytes of UTF-8 when `name` had.
    public static func migratedName(_ name: String, maximumBytes: Int, isTaken: (String) -> Bool) -> String {
        var suffix = 2
        while true {
            let tail = "-\(suffix)"
            var base = Substring(name)
            let limit = max(maximumBytes, name.utf8.count)
            while !base.isEmpty, base.utf8.count + tail.utf8.count > limit { base = base.dropLast() }
            let candidate = String(base) + tail
            if !isTaken(nameKey(of: candidate)) { return candidate }
            suffix += 1
        }
    }
}
