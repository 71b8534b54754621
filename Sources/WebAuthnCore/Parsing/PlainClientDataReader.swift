/// Reads client data of the plain shape every browser writes, without building a JSON tree: one object whose
/// member names are ASCII without escapes, and whose values are strings without escapes, booleans or null. It
/// answers nil for any other text, valid or not, which `CollectedClientData` then reads with `StrictJSONParser`.
/// So it never decides a refusal: what it accepts, the general parser accepts with the same members (the `client-data`
/// fuzz target and `PlainClientDataReaderTests` check that), and it is only the faster of the two ways.
///
/// It exists for speed: building every member as a `String` and a `JSONValue` and finding the five it needs by name
/// was the largest part (a third) of the WebAuthn work around an RS256 verification.
enum PlainClientDataReader {
    /// At most this many members are compared for duplicates on the stack; more go to the general parser.
    static let maximumMembers = 16

    /// The members of `body` (valid UTF-8, its byte order mark already removed), or nil when the text is not of the
    /// plain shape.
    static func members(of body: ArraySlice<UInt8>) -> CollectedClientData.Members? {
        body.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumMembers) { names in
                var cursor = Cursor(bytes: bytes)
                return cursor.object(names: names)
            }
        }
    }

    /// The members the steps read, by the name they are spelt with.
    private enum Member {
        case type, challenge, origin, crossOrigin, topOrigin

        /// The member whose name `bytes[name]` spells, if the steps read it.
        init?(spelling name: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
            func spells(_ known: StaticString) -> Bool {
                guard name.count == known.utf8CodeUnitCount else { return false }
                for offset in 0..<name.count where bytes[name.lowerBound + offset] != known.utf8Start[offset] { return false }
                return true
            }
            if spells("type") {
                self = .type
            } else if spells("challenge") {
                self = .challenge
            } else if spells("origin") {
                self = .origin
            } else if spells("crossOrigin") {
                self = .crossOrigin
            } else if spells("topOrigin") {
                self = .topOrigin
            } else {
                return nil
            }
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        mutating func object(names: UnsafeMutableBufferPointer<Range<Int>>) -> CollectedClientData.Members? {
            var members = CollectedClientData.Members()
            var count = 0
            skipWhitespace()
            guard current == UInt8(ascii: "{") else { return nil }
            position += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return end() ? members : nil
            }
            while true {
                skipWhitespace()
                guard count < names.count, current == UInt8(ascii: "\""), let name = nameText() else { return nil }
                for earlier in names[..<count] where same(earlier, name) { return nil }
                names[count] = name
                count += 1
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return nil }
                position += 1
                skipWhitespace()
                let member = Member(spelling: name, in: bytes)
                // A member the steps do not read is checked, not kept (Chrome's long `other_keys_can_be_added_here`).
                guard let value = value(kept: member != nil) else { return nil }
                switch member {
                case .type?: members.type = value
                case .challenge?: members.challenge = value
                case .origin?: members.origin = value
                case .crossOrigin?: members.crossOrigin = value
                case .topOrigin?: members.topOrigin = value
                case nil: break
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return end() ? members : nil
                default: return nil
                }
            }
        }

        /// Whether only whitespace follows.
        mutating func end() -> Bool {
            skipWhitespace()
            return position == bytes.count
        }

        /// A member name's characters (after the opening quote is checked): printable ASCII, no escape.
        mutating func nameText() -> Range<Int>? {
            position += 1
            let start = position
            while let byte = current, byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                position += 1
            }
            guard current == UInt8(ascii: "\"") else { return nil }
            position += 1
            return start..<position - 1
        }

        /// A string without escapes, a boolean or null; nil for anything else. A string not `kept` is checked and
        /// answered as `.null`, without building its text.
        mutating func value(kept: Bool) -> JSONValue? {
            switch current {
            case UInt8(ascii: "\""):
                position += 1
                let start = position
                while let byte = current, byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") { position += 1 }
                guard current == UInt8(ascii: "\"") else { return nil }
                position += 1
                guard kept else { return .null }
                return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self))
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return nil
            }
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let length = text.utf8CodeUnitCount
            guard position + length <= bytes.count else { return false }
            for offset in 0..<length where bytes[position + offset] != text.utf8Start[offset] { return false }
            position += length
            return true
        }

        func same(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
            guard first.count == second.count else { return false }
            for offset in 0..<first.count where bytes[first.lowerBound + offset] != bytes[second.lowerBound + offset] { return false }
            return true
        }

    }
}
