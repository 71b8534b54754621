/// Reads client data of the plain shape every browser writes, without building a JSON tree: one object whose
/// member names are ASCII without escapes, and whose values are strings without escapes, booleans or null. It
/// answers nil for any other text, valid or not, which `CollectedClientData` then reads with `StrictJSONParser`.
/// So it never decides a refusal: what it accepts, the general parser accepts with the same members (the `client-data`
/// fuzz target and `PlainClientDataReaderTests` check that), and it is only the faster of the two ways.
///
/// It exists for speed: building every member as a `String` and a `JSONValue` and finding the five it needs by name
/// was the largest part (a third) of the WebAuthn work around an RS256 verification.
import JSON

enum PlainClientDataReader {
    /// At most this many members are compared for duplicates on the stack; more go to the general parser.
    static let maximumMembers = 16

    /// The members of `body` (valid UTF-8, its byte order mark already removed), or nil when the text is not of the
    /// plain shape.
    static func members(of body: ArraySlice<UInt8>) -> CollectedClientData.Members? {
        body.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumMembers) { names in
                var cursor = StrictJSONParser.Cursor(bytes: bytes)
                return cursor.plainObject(names: names)
            }
        }
    }

    /// The members the steps read, by the name they are spelt with.
    fileprivate enum Member {
        case type, challenge, origin, crossOrigin, topOrigin

        /// The member whose name `bytes[name]` spells, if the steps read it.
        init?(spelling name: Range<Int>, in cursor: StrictJSONParser.Cursor) {
            if cursor.spells(name, "type") {
                self = .type
            } else if cursor.spells(name, "challenge") {
                self = .challenge
            } else if cursor.spells(name, "origin") {
                self = .origin
            } else if cursor.spells(name, "crossOrigin") {
                self = .crossOrigin
            } else if cursor.spells(name, "topOrigin") {
                self = .topOrigin
            } else {
                return nil
            }
        }
    }
}

extension StrictJSONParser.Cursor {
    /// The plain-shape object from the cursor to the end of the text (whitespace around it), its member names' ranges
    /// kept in `names` to find a repeated one; nil when the text is of any other shape.
    fileprivate mutating func plainObject(names: UnsafeMutableBufferPointer<Range<Int>>) -> CollectedClientData.Members? {
        var members = CollectedClientData.Members()
        var count = 0
        skipWhitespace()
        guard current == UInt8(ascii: "{") else { return nil }
        position += 1
        skipWhitespace()
        if current != UInt8(ascii: "}") {
            while true {
                skipWhitespace()
                guard count < names.count, current == UInt8(ascii: "\""), let name = unescapedText(asciiOnly: true) else { return nil }
                for earlier in names[..<count] where spells(name, UnsafeBufferPointer(rebasing: bytes[earlier])) { return nil }
                names[count] = name
                count += 1
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return nil }
                position += 1
                skipWhitespace()
                let member = PlainClientDataReader.Member(spelling: name, in: self)
                // A member the steps do not read is checked, not kept (Chrome's long `other_keys_can_be_added_here`).
                guard let value = plainValue(kept: member != nil) else { return nil }
                switch member {
                case .type?: members.type = value
                case .challenge?: members.challenge = value
                case .origin?: members.origin = value
                case .crossOrigin?: members.crossOrigin = value
                case .topOrigin?: members.topOrigin = value
                case nil: break
                }
                skipWhitespace()
                guard current == UInt8(ascii: ",") else { break }
                position += 1
            }
            guard current == UInt8(ascii: "}") else { return nil }
        }
        position += 1
        skipWhitespace()
        return position == bytes.count ? members : nil
    }

    /// A string's characters (the cursor on its opening quote) when it has no escape and no control character, and,
    /// with `asciiOnly`, only ASCII; the cursor then stands after its closing quote.
    private mutating func unescapedText(asciiOnly: Bool) -> Range<Int>? {
        position += 1
        let start = position
        while let byte = current, byte >= 0x20, !asciiOnly || byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            position += 1
        }
        guard current == UInt8(ascii: "\"") else { return nil }
        position += 1
        return start..<position - 1
    }

    /// A string without escapes, a boolean or null; nil for anything else. A string not `kept` is checked and
    /// answered as `.null`, without building its text.
    private mutating func plainValue(kept: Bool) -> JSONValue? {
        switch current {
        case UInt8(ascii: "\""):
            guard let text = unescapedText(asciiOnly: false) else { return nil }
            return kept ? .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self)) : .null
        case UInt8(ascii: "t"): return (try? expect("true")) != nil ? .bool(true) : nil
        case UInt8(ascii: "f"): return (try? expect("false")) != nil ? .bool(false) : nil
        case UInt8(ascii: "n"): return (try? expect("null")) != nil ? .null : nil
        default: return nil
        }
    }

    /// Whether the text's `range` holds exactly the bytes of `other`.
    fileprivate func spells(_ range: Range<Int>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.count == other.count else { return false }
        for offset in 0..<other.count where bytes[range.lowerBound + offset] != other[offset] { return false }
        return true
    }

    fileprivate func spells(_ range: Range<Int>, _ known: StaticString) -> Bool {
        spells(range, UnsafeBufferPointer(start: known.utf8Start, count: known.utf8CodeUnitCount))
    }
}
