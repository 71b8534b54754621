internal import CICU

/// Unicode TS #39 (Unicode Security Mechanisms) for names, by ICU's spoof checker: a name's confusable skeleton (§4:
/// two strings are confusable when their skeletons are equal, as `paypal` and `раураl` with Cyrillic letters are) and
/// whether it mixes scripts beyond the Highly Restrictive level (§5.2: one script, or Latin with the scripts of
/// Chinese, Japanese or Korean writing). Pure functions of the text: ICU's checker is configured once and only read,
/// which ICU documents as safe from any thread.
public enum ConfusableSkeleton {
    /// ICU's checker, configured for the restriction-level and mixed-numbers checks, never changed afterwards.
    private nonisolated(unsafe) static let checker: OpaquePointer? = {
        var status = U_ZERO_ERROR
        guard let checker = passkeyd_uspoof_open(&status), status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
        passkeyd_uspoof_setChecks(checker, Int32(USPOOF_RESTRICTION_LEVEL.rawValue | USPOOF_MIXED_NUMBERS.rawValue), &status)
        passkeyd_uspoof_setRestrictionLevel(checker, USPOOF_HIGHLY_RESTRICTIVE)
        guard status.rawValue <= U_ZERO_ERROR.rawValue else {
            passkeyd_uspoof_close(checker)
            return nil
        }
        return checker
    }()

    /// The longest text these functions read, in UTF-8 bytes: names are far shorter, and ICU takes an `Int32` length.
    public static let maximumBytes = 4096

    /// The skeleton of `text` (UTS #39 §4), or nil when ICU could not compute it or the text is longer than
    /// `maximumBytes`. Equal skeletons mean the texts can be mistaken for each other.
    public static func of(_ text: String) -> String? {
        guard let checker, text.utf8.count <= maximumBytes else { return nil }
        var bytes = Array(text.utf8)
        let length = Int32(bytes.count)
        // A skeleton can be longer than its text (one character may map to several): ask again with the size ICU says.
        var capacity = bytes.count * 3 + 16
        for _ in 0..<2 {
            var status = U_ZERO_ERROR
            var output = [CChar](repeating: 0, count: capacity)
            let written = bytes.withUnsafeMutableBufferPointer { input in
                input.withMemoryRebound(to: CChar.self) { text in
                    passkeyd_uspoof_getSkeletonUTF8(checker, text.baseAddress, length, &output, Int32(capacity), &status)
                }
            }
            if status == U_BUFFER_OVERFLOW_ERROR {
                capacity = Int(written) + 1
                continue
            }
            guard status.rawValue <= U_ZERO_ERROR.rawValue, written >= 0, Int(written) < capacity else { return nil }
            return String(decoding: output.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// Whether `text` mixes scripts beyond the Highly Restrictive level (UTS #39 §5.2: `pаypal` with a Cyrillic `а`
    /// does, `josé`, `山田taro` and `alice@example.com` do not) or mixes digits of several numbering systems. True,
    /// failing closed, when ICU cannot tell or the text is longer than `maximumBytes`.
    public static func mixesScripts(_ text: String) -> Bool {
        guard let checker, text.utf8.count <= maximumBytes else { return true }
        var bytes = Array(text.utf8)
        var status = U_ZERO_ERROR
        let result = bytes.withUnsafeMutableBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { text in
                passkeyd_uspoof_check2UTF8(checker, text.baseAddress, Int32(text.count), &status)
            }
        }
        return status.rawValue > U_ZERO_ERROR.rawValue || result != 0
    }
}
