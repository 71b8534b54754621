internal import CICU

/// Unicode TS #39 (Unicode Security Mechanisms) for names, by ICU's spoof checker: a name's confusable skeleton (§4:
/// two strings are confusable when their skeletons are equal, as `paypal` and `раураl` with Cyrillic letters are) and
/// whether it mixes scripts beyond the Highly Restrictive level (§5.2: one script, or Latin with the scripts of
/// Chinese, Japanese or Korean writing). Pure functions of the text: ICU's checker is configured once and only read,
/// which ICU documents as safe from any thread.
public enum ConfusableSkeleton {
    /// ICU's checker, configured for the restriction-level and mixed-numbers checks, never changed afterwards.
    private nonisolated(unsafe) static let checker: OpaquePointer? = passkeyd_spoof_checker_open()

    /// The longest text these functions read, in UTF-8 bytes: names are far shorter, and ICU takes an `Int32` length.
    public static let maximumBytes = 4096

    /// The skeleton of `text` (UTS #39 §4), or nil when ICU could not compute it or the text is longer than
    /// `maximumBytes`. Equal skeletons mean the texts can be mistaken for each other.
    public static func of(_ text: String) -> String? {
        guard let checker, text.utf8.count <= maximumBytes else { return nil }
        let bytes = Array(text.utf8)
        // A skeleton can be longer than its text (one character may map to several): ask again with the size ICU says.
        var capacity = bytes.count * 3 + 16
        for _ in 0..<2 {
            var output = [CChar](repeating: 0, count: capacity)
            let written = bytes.withUnsafeBufferPointer { input in
                input.withMemoryRebound(to: CChar.self) { text in
                    passkeyd_spoof_skeleton(checker, text.baseAddress, Int32(text.count), &output, Int32(capacity))
                }
            }
            guard written >= 0 else { return nil }
            guard Int(written) <= capacity else {
                capacity = Int(written)
                continue
            }
            return String(decoding: output.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// Whether `text` mixes scripts beyond the Highly Restrictive level (UTS #39 §5.2: `pаypal` with a Cyrillic `а`
    /// does, `josé`, `山田taro` and `alice@example.com` do not) or mixes digits of several numbering systems. True,
    /// failing closed, when ICU cannot tell or the text is longer than `maximumBytes`.
    public static func mixesScripts(_ text: String) -> Bool {
        guard let checker, text.utf8.count <= maximumBytes else { return true }
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { text in
                passkeyd_spoof_suspicious(checker, text.baseAddress, Int32(text.count))
            }
        }
        return result != 0
    }
}
