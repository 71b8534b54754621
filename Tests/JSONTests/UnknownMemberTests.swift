import JSON
import Testing

/// `JSONValueDecoder.decode(_:from:refusingUnknownMembers:)`: a member no `Decodable` looked up is refused with its path,
/// in nested objects and arrays too; a member read whole (`JSONValue`, a dictionary) holds anything.
struct UnknownMemberTests {
    struct Item: Decodable, Equatable {
        var name: String
        var note: String?
    }

    struct Body: Decodable, Equatable {
        var title: String
        var items: [Item]?
        var owner: Item?
        var extra: JSONValue?
        var labels: [String: String]?
    }

    static func outcome(_ text: String) -> String {
        guard let tree = StrictJSONParser.strictValue(Array(text.utf8)) else { return "not JSON" }
        do {
            _ = try JSONValueDecoder.decode(Body.self, from: tree, refusingUnknownMembers: true)
            return "taken"
        } catch let error as UnknownMemberError {
            return "unknown \(error.path)"
        } catch {
            return "refused"
        }
    }

    @Test(arguments: [
        (#"{"title": "t"}"#, "taken"),
        (#"{"title": "t", "items": [{"name": "a"}, {"name": "b", "note": null}], "owner": {"name": "o"}}"#, "taken"),
        (#"{"title": "t", "extra": {"anything": [1, {"deep": true}]}, "labels": {"x": "y"}}"#, "taken"),
        (#"{"title": "t", "titel": "u"}"#, "unknown titel"),
        (#"{"title": "t", "b": 1, "a": 2}"#, "unknown a"),
        (#"{"title": "t", "owner": {"name": "o", "role": "admin"}}"#, "unknown owner.role"),
        (#"{"title": "t", "items": [{"name": "a"}, {"name": "b", "Note": "x"}]}"#, "unknown items[1].Note"),
        // An absent or null optional member is still one the type asked for.
        (#"{"title": "t", "owner": null, "items": null}"#, "taken"),
        // A missing required member is the decoder's refusal, as without the option.
        (#"{"titel": "t"}"#, "refused"),
    ])
    func unknownMembersAreRefusedWithTheirPath(body: String, expected: String) {
        #expect(Self.outcome(body) == expected)
    }

    @Test func withoutTheOptionUnknownMembersAreIgnored() throws {
        let tree = try #require(StrictJSONParser.strictValue(Array(#"{"title": "t", "titel": "u"}"#.utf8)))
        #expect(try JSONValueDecoder.decode(Body.self, from: tree, refusingUnknownMembers: false).title == "t")
        #expect(try JSONValueDecoder.decode(Body.self, from: tree).title == "t")
    }
}
