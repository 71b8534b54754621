import JSON
import Testing

/// The strict parser's strings read eight bytes at a time until a byte that ends the plain run: whatever its place in
/// the string (inside the first word, across a word boundary, in the tail), a quote, a backslash or a control
/// character is found, and other bytes (space, DEL, non-ASCII) are kept as they are.
@Suite struct StrictJSONParserRunTests {
    /// `"` + `length` bytes with `inserted` at `index` + `"`, as the parser's input.
    private func document(length: Int, inserting inserted: [UInt8], at index: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        bytes.replaceSubrange(index..<index + 1, with: inserted)
        return [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
    }

    @Test func aControlCharacterAnywhereInAStringIsRefused() {
        for length in 1...40 {
            for index in 0..<length {
                for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F] {
                    let bytes = document(length: length, inserting: [control], at: index)
                    #expect(StrictJSONParser.strictValue(bytes) == nil, "control \(control) at \(index) of \(length)")
                }
            }
        }
    }

    @Test func aBareQuoteAnywhereInAStringEndsIt() {
        for length in 1...40 {
            for index in 0..<length {
                // `"xx"xx"`: the string ends at the inserted quote and what follows is not JSON.
                let bytes = document(length: length, inserting: [UInt8(ascii: "\"")], at: index)
                #expect(StrictJSONParser.strictValue(bytes) == nil, "quote at \(index) of \(length)")
            }
        }
    }

    @Test func anEscapeAnywhereInAStringIsRead() {
        for length in 1...40 {
            for index in 0..<length {
                let bytes = document(length: length, inserting: Array(#"\n"#.utf8), at: index)
                let expected = String(repeating: "x", count: index) + "\n" + String(repeating: "x", count: length - index - 1)
                #expect(StrictJSONParser.strictValue(bytes) == .string(expected), "escape at \(index) of \(length)")
            }
        }
    }

    @Test func otherBytesAnywhereInAStringAreKept() {
        for length in 1...40 {
            for index in 0..<length {
                for kept in [" ", "\u{7F}", "é", "🙂", "/", "]"] {
                    let bytes = document(length: length, inserting: Array(kept.utf8), at: index)
                    let expected = String(repeating: "x", count: index) + kept + String(repeating: "x", count: length - index - 1)
                    #expect(StrictJSONParser.strictValue(bytes) == .string(expected), "\(kept) at \(index) of \(length)")
                }
            }
        }
    }

    @Test func objectsOfAnySizeKeepEveryMemberAndRefuseARepeatedName() {
        for count in 0...40 {
            let members = (0..<count).map { #""m\#($0)": \#($0)"# }
            let parsed = StrictJSONParser.strictValue(Array(("{" + members.joined(separator: ",") + "}").utf8))
            let expected = Dictionary(uniqueKeysWithValues: (0..<count).map { ("m\($0)", JSONValue.number(Double($0))) })
            #expect(parsed == .object(expected), "\(count) members")
            for repeated in 0..<count {
                let text = "{" + (members + [#""m\#(repeated)": 0"#]).joined(separator: ",") + "}"
                #expect(StrictJSONParser.strictValue(Array(text.utf8)) == nil, "m\(repeated) twice in \(count + 1) members")
            }
        }
    }
}
