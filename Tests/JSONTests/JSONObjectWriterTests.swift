import Foundation
import JSON
import Testing

/// The JSON writer (`JSONObjectWriter`): the text it writes reads back as what was written.
@Suite struct JSONObjectWriterTests {
    @Test func theJSONWriterEscapesWhatRFC8259Requires() throws {
        var writer = JSONObjectWriter()
        let text = "quote\" backslash\\ newline\n tab\t nul\u{0} del\u{7F} é 🙂 </script>"
        writer.add("s", text)
        writer.add("n", Int64(-42))
        writer.add("t", true)
        writer.add("f", false)
        writer.add("a", ["x", "y\"z"])
        writer.add("e", [String]())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.finished())) as? [String: Any])
        #expect(object["s"] as? String == text)
        #expect(object["n"] as? Int == -42)
        #expect(object["t"] as? Bool == true && object["f"] as? Bool == false)
        #expect(object["a"] as? [String] == ["x", "y\"z"])
        #expect((object["e"] as? [String])?.isEmpty == true)
        #expect(JSONObjectWriter().finished() == Array("{}".utf8))
    }

    /// Runs without an escape are found eight bytes at a time: every ASCII byte, at every offset of a long string (so
    /// in each lane of a word, and in the tail shorter than one), comes out escaped exactly when it must be; the
    /// multi-byte characters around it pass through.
    @Test func everyByteIsEscapedWhereverItStands() throws {
        for byte in UInt8(0)...0x7F {
            for offset in 0..<19 {
                let character = String(UnicodeScalar(byte))
                let text = String(repeating: "a", count: offset) + character + String(repeating: "é", count: 3) + "b"
                var writer = JSONObjectWriter()
                writer.add("s", text)
                let written = writer.finished()
                let object = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
                #expect(object["s"] as? String == text)
                // `{"s":"` and `"}` around the text; `\u00XX` for a control byte without a short escape and for 0x7F.
                let isShortEscape = [0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "\\")].contains(byte)
                let added = isShortEscape ? 1 : byte < 0x20 || byte == 0x7F ? 5 : 0
                #expect(written.count == 8 + text.utf8.count + added)
            }
        }
    }
}
