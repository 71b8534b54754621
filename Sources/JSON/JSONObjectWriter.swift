/// Writes one JSON object (RFC 8259) member by member into bytes: the JOSE headers and JWT claims passkeyd signs, and
/// the bodies of the sign-in ceremonies' answers (objects nest through `add(_:object:)` and `add(_:objects:_:)`). Foundation's `JSONEncoder` costs several microseconds for a dozen members, a sizeable part of an ES256
/// signature; this writes the same text in a fraction of that. Members are written in the order given; the caller
/// never gives a name twice. Strings are escaped as RFC 8259 §7 requires (quote, backslash, control characters).
public struct JSONObjectWriter: Sendable {
    public private(set) var bytes: [UInt8]
    private var isEmpty = true

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// The finished object (the writer is done with it).
    public consuming func finished() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public mutating func add(_ name: StaticString, _ value: String) {
        writeName(name)
        writeString(value)
    }

    /// A string member whose text `write` appends as bytes that need no escape (the caller vouches for it: base64url
    /// text, digits), written without making a String. CryptoCore's `add(_:base64URL:)` writes through this.
    package mutating func add(_ name: StaticString, unescapedString write: (inout [UInt8]) -> Void) {
        writeName(name)
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A member whose name is not a literal (escaped as a string is) and whose value is JSON text already: the caller
    /// vouches for it (a value the strict parser read, written again by an encoder), such as a claim copied from an
    /// account's metadata.
    package mutating func add(member name: String, json value: [UInt8]) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: value)
    }

    public mutating func add(_ name: StaticString, _ value: Int64) {
        writeName(name)
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The decimal digits, least significant first into a scratch buffer (a division by the constant 10 is a
        // multiplication), then copied in order: no String is made.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { scratch in
            var start = scratch.count
            repeat {
                let quotient = magnitude / 10
                start -= 1
                scratch[start] = UInt8(ascii: "0") + UInt8(magnitude - quotient * 10)
                magnitude = quotient
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[start...]))
        }
    }

    public mutating func add(_ name: StaticString, _ value: Bool) {
        writeName(name)
        append(value ? "true" : "false")
    }

    public mutating func add(_ name: StaticString, _ values: [String]) {
        writeName(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writeString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member whose value is an object, written by `body` into this writer (nested at any depth).
    public mutating func add(_ name: StaticString, object body: (inout JSONObjectWriter) -> Void) {
        writeName(name)
        bytes.append(UInt8(ascii: "{"))
        isEmpty = true
        body(&self)
        isEmpty = false
        bytes.append(UInt8(ascii: "}"))
    }

    /// A member whose value is an array of objects, each written by `body`.
    public mutating func add<Element>(_ name: StaticString, objects elements: [Element], _ body: (inout JSONObjectWriter, Element) -> Void) {
        writeName(name)
        bytes.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "{"))
            isEmpty = true
            body(&self, element)
            bytes.append(UInt8(ascii: "}"))
        }
        isEmpty = false
        bytes.append(UInt8(ascii: "]"))
    }

    /// The bytes of a literal (no array is made for them).
    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A member name: a literal of the caller's, written as it is (names are plain ASCII and need no escape).
    private mutating func writeName(_ name: StaticString) {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
        bytes.append(UInt8(ascii: "\""))
        append(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Runs that need no escape are copied in one go; they are found eight bytes at a time (an access token or a
            // base64url key is hundreds of bytes without one).
            var start = 0
            var index = 0
            while index < utf8.count {
                if index + 8 <= utf8.count, let base = utf8.baseAddress,
                    !Self.anyNeedsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = utf8[index]
                index += 1
                guard byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index - 1]))
                writeEscape(byte)
                start = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` is one `writeString` escapes: below 0x20, 0x7F, a quote or a backslash.
    /// A byte below `n` (at most 0x80) leaves its top bit set in `(word - n per byte) & ~word`; a byte equal to `c` is
    /// a zero byte of `word ^ c per byte` (Hacker's Delight, "find a zero byte"). Exact for the whole word, whichever
    /// byte it is.
    static func anyNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        return control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) | hasZeroByte(word ^ (ones &* 0x7F)) != 0
    }

    private mutating func writeEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            bytes.append(contentsOf: Array("\\u00".utf8))
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}
