/// The names that start with a prefix, as a range of byte-wise (UTF-8, code point) order that an index on the name can
/// scan: `lower <= name < upper`. SQL drivers compare with a byte-wise collation (SQLite's BINARY, PostgreSQL's "C").
public struct NamePrefixRange: Sendable, Equatable {
    /// The prefix itself: the least name that starts with it.
    public let lower: String
    /// The least string after every name that starts with the prefix: the prefix with its last character replaced by
    /// the next code point (dropping trailing U+10FFFF first); nil when no such string exists (an empty prefix, or one
    /// of U+10FFFF only).
    public let upper: String?

    public init(prefix: String) {
        lower = prefix
        var scalars = Array(prefix.unicodeScalars)
        var upper: String?
        while let last = scalars.popLast() {
            if let next = Self.successor(of: last) {
                var bound = String.UnicodeScalarView()
                bound.append(contentsOf: scalars)
                bound.append(next)
                upper = String(bound)
                break
            }
        }
        self.upper = upper
    }

    /// The next Unicode scalar value (skipping the surrogates), nil after U+10FFFF.
    private static func successor(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        var value = scalar.value + 1
        if (0xD800...0xDFFF).contains(value) { value = 0xE000 }
        return Unicode.Scalar(value)
    }
}
