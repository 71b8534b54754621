import JSON
import Testing

/// The elements of a document's one array, handed out as they complete whatever the pieces the document arrives in;
/// every document that is not one array of objects (or the one member holding it) refused.
struct JSONArrayElementReaderTests {
    /// The elements of `text` read in pieces of `pieceBytes`, or the failure.
    static func elements(
        _ text: String,
        _ envelope: JSONArrayElementReader.Envelope = .array,
        pieceBytes: Int = 1,
        maximumElementBytes: Int = 1024
    ) -> Result<[String], JSONArrayElementReader.Failure> {
        var reader = JSONArrayElementReader(envelope: envelope, maximumElementBytes: maximumElementBytes)
        let bytes = Array(text.utf8)
        var elements: [String] = []
        do throws(JSONArrayElementReader.Failure) {
            var start = 0
            while start < bytes.count {
                try reader.read(bytes[start..<min(start + pieceBytes, bytes.count)]) { elements.append(String(decoding: $0, as: UTF8.self)) }
                start += pieceBytes
            }
            try reader.finish()
            return .success(elements)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [1, 2, 5, 1000])
    func elementsAreHandedOutWhateverThePieces(pieceBytes: Int) throws {
        let text = #" [ {"a": "]}\"{"}, {"b": [1, {"c": []}]} ,{} ] "#
        #expect(try Self.elements(text, pieceBytes: pieceBytes).get() == [#"{"a": "]}\"{"}"#, #"{"b": [1, {"c": []}]}"#, "{}"])
        let member = "{\n \"users\" : [" + #"{"x": "\\"}"# + "]\n}\n"
        #expect(try Self.elements(member, .member("users"), pieceBytes: pieceBytes).get() == [#"{"x": "\\"}"#])
        #expect(try Self.elements(#"{"users": []}"#, .member("users"), pieceBytes: pieceBytes).get() == [])
        #expect(try Self.elements("[]", pieceBytes: pieceBytes).get() == [])
    }

    @Test(arguments: [
        "", "[", "[{}", "[{},", "[{}] x", "[{},]", "[,{}]", "[1]", "[\"a\"]", "[{}{}]", "{}", "[{}]]", "[{\"a\": \"}]",
    ])
    func notOneArrayOfObjectsIsRefused(text: String) {
        #expect((try? Self.elements(text).get()) == nil, "\(text)")
    }

    @Test(arguments: [
        #"[]"#, #"{"user": []}"#, #"{"users": [], "more": 1}"#, #"{"users": {}}"#, #"{"\u0075sers": []}"#, #"{"users": []"#, #"{"users": []}}"#,
        #"{ "users" : [{}] } {}"#,
    ])
    func aMemberEnvelopeTakesOnlyItsMember(text: String) {
        #expect((try? Self.elements(text, .member("users")).get()) == nil, "\(text)")
    }

    @Test func elementsAreBoundedInSizeAndDepth() {
        let long = "[{\"a\": \"" + String(repeating: "x", count: 100) + "\"}]"
        guard case .failure(let failure) = Self.elements(long, maximumElementBytes: 64) else {
            Issue.record("an element over the bound was read")
            return
        }
        #expect(failure.element == 1 && failure.reason.contains("over 64 bytes"))
        #expect((try? Self.elements(long, maximumElementBytes: 200).get())?.count == 1)
        let deep = "[" + String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65) + "]"
        #expect((try? Self.elements(deep, maximumElementBytes: 4096).get()) == nil)
    }

    @Test func aFailureNamesTheElementBeingRead() {
        guard case .failure(let failure) = Self.elements(#"[{}, {}, 7]"#) else {
            Issue.record("a number was read as an element")
            return
        }
        #expect(failure.element == 3)
    }
}
