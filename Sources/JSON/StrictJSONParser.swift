/// A strict RFC 8259 JSON parser for client data and request bodies: one value, no trailing content, no duplicate
/// member names (two `type` or `challenge` members could be read differently by different parsers), bounded depth,
/// lone surrogates refused. Written for speed on the verification hot path (Foundation's decoder costs more than an
/// RSA verification); the input must already be valid UTF-8.
public struct StrictJSONParser {
    package struct Failure: Error {}

    /// One member of an object, in document order.
    package struct JSONMember {
        package let name: String
        package let value: JSONValue
    }

    package static let maximumDepth = 32

    /// Whether `bytes` are valid UTF-8 holding one strict JSON value (no repeated member name at any level, at most
    /// `maximumDepth` deep): the check the server runs on every request body before it decodes it, so that a body
    /// that parsers could read differently (first or last duplicate wins) is refused instead.
    public static func isStrict(_ bytes: [UInt8]) -> Bool {
        strictValue(bytes) != nil
    }

    /// The value of `bytes` when they pass `isStrict`'s check, else nil: the tree a request body is decoded from.
    public static func strictValue(_ bytes: [UInt8]) -> JSONValue? {
        guard (try? UTF8Span(validating: bytes.span)) != nil else { return nil }
        return try? parse(bytes[...])
    }

    package static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) -> JSONValue in
            var parser = Cursor(bytes: buffer)
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw Failure() }
            return value
        }
    }

    /// A text whose value must be an object, as its members in order: cheaper than a dictionary for the handful
    /// of members client data has. Duplicate names fail as everywhere.
    package static func parseObjectMembers(_ bytes: ArraySlice<UInt8>) throws(Failure) -> [JSONMember] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) -> [JSONMember] in
            var parser = Cursor(bytes: buffer)
            parser.skipWhitespace()
            guard parser.current == UInt8(ascii: "{") else { throw Failure() }
            let members = try parser.members(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw Failure() }
            return members
        }
    }

    /// A position in the text, and the lexical pieces both readers share (`PlainClientDataReader` extends it).
    package struct Cursor {
        package let bytes: UnsafeBufferPointer<UInt8>
        package var position = 0

        package init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        package var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        package mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        package mutating func expect(_ literal: StaticString) throws(Failure) {
            let length = literal.utf8CodeUnitCount
            guard position + length <= bytes.count else { throw Failure() }
            for offset in 0..<length where bytes[position + offset] != literal.utf8Start[offset] { throw Failure() }
            position += length
        }

        package mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < StrictJSONParser.maximumDepth, let byte = current else { throw Failure() }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            default: return .number(try number())
            }
        }

        package mutating func object(depth: Int) throws(Failure) -> JSONValue {
            let members = try members(depth: depth)
            // Sized once: grown from empty, the dictionary rehashed its members at each doubling.
            var object = [String: JSONValue](minimumCapacity: members.count)
            for member in members { object[member.name] = member.value }
            return .object(object)
        }

        /// The members of the object starting at the cursor, in order; duplicate names fail.
        package mutating func members(depth: Int) throws(Failure) -> [JSONMember] {
            position += 1
            var members: [JSONMember] = []
            members.reserveCapacity(8)
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return members
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw Failure() }
                let name = try string()
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw Failure() }
                position += 1
                skipWhitespace()
                let member = try value(depth: depth + 1)
                guard !members.contains(where: { $0.name == name }) else { throw Failure() }
                members.append(JSONMember(name: name, value: member))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return members
                default: throw Failure()
                }
            }
        }

        package mutating func array(depth: Int) throws(Failure) -> JSONValue {
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"):
                    position += 1
                    return .array(items)
                default: throw Failure()
                }
            }
        }

        package mutating func string() throws(Failure) -> String {
            position += 1
            let start = position
            // Fast path: no escapes. Eight bytes at a time while none of them ends the run (a quote, a backslash, or a
            // control character, which fails below): base64url members are hundreds of bytes.
            if let base = bytes.baseAddress {
                while position + 8 <= bytes.count, !Self.anyEndsRun(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)) {
                    position += 8
                }
            }
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw Failure() }
                position += 1
            }
            guard let stop = current else { throw Failure() }
            if stop == UInt8(ascii: "\"") {
                position += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self)
            }
            var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while let byte = current {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { throw Failure() }
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"): scalars.append(contentsOf: try unicodeEscape())
                    default: throw Failure()
                    }
                default:
                    guard byte >= 0x20 else { throw Failure() }
                    scalars.append(byte)
                }
            }
            throw Failure()
        }

        /// Whether any of the eight bytes of `word` is a quote, a backslash or below 0x20: a byte below 0x20 leaves its
        /// top bit set in `(word - 0x20 per byte) & ~word`, a byte equal to `c` is a zero byte of `word ^ c per byte`
        /// (Hacker's Delight, "find a zero byte"; exact for the whole word, as `JSONObjectWriter.anyNeedsEscape`).
        static func anyEndsRun(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
            let control = (word &- ones &* 0x20) & ~word & highs
            return control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) != 0
        }

        /// `\uXXXX` (after the `u`), joining a surrogate pair; lone surrogates fail.
        package mutating func unicodeEscape() throws(Failure) -> [UInt8] {
            var code = try hexQuad()
            if (0xD800...0xDBFF).contains(code) {
                try expect("\\u")
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw Failure() }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw Failure()
            }
            guard let scalar = Unicode.Scalar(code) else { throw Failure() }
            return Array(String(Character(scalar)).utf8)
        }

        package mutating func hexQuad() throws(Failure) -> UInt32 {
            guard position + 4 <= bytes.count else { throw Failure() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Failure()
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        package mutating func number() throws(Failure) -> Double {
            let start = position
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { throw Failure() }
            position += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let digit = current, isDigit(digit) else { throw Failure() }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let digit = current, isDigit(digit) else { throw Failure() }
                skipDigits()
            }
            guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)) else { throw Failure() }
            return value
        }

        package mutating func skipDigits() {
            while let byte = current, isDigit(byte) { position += 1 }
        }

        package func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
