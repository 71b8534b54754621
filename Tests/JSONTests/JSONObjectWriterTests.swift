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
}
