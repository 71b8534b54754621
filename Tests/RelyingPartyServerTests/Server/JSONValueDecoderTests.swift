import Foundation
import HTTPEdge
import JSON
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// The request bodies through the tree decoder (`JSONValueDecoder`, what `JSONBody.decode` uses) and through
/// Foundation's `JSONDecoder` (what it used before): the same value, or the same refusal (code and member), for every
/// request type the server decodes and for bodies of every wrong shape.
@Suite struct JSONValueDecoderTests {
    /// A body's outcome: the decoded value as `dump` writes it, or the refusal `JSONBody` answers with.
    static func outcomes<Value: Decodable>(_ type: Value.Type, _ body: String) throws -> (tree: String, foundation: String) {
        let tree = try #require(StrictJSONParser.strictValue(Array(body.utf8)), "not strict JSON: \(body)")
        return (
            describe { try JSONValueDecoder.decode(type, from: tree) },
            describe { try JSONDecoder().decode(type, from: Data(body.utf8)) }
        )
    }

    /// A decoder's outcome: the decoded value's text, or the refusal `JSONBody` answers with.
    static func describe<Value>(_ decode: () throws -> Value) -> String {
        do {
            return canonical(try decode())
        } catch {
            let refusal = JSONBody.refusal(error)
            return "refused \(refusal.code) \(refusal.member ?? "-")"
        }
    }

    /// A value's text with its members in order and every object's members sorted (a dictionary's order differs from
    /// one instance to the next, so `dump` of two equal values may differ).
    static func canonical(_ value: Any) -> String {
        if let json = value as? JSONValue {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return (try? encoder.encode(json)).map { "JSONValue " + String(decoding: $0, as: UTF8.self) } ?? String(reflecting: json)
        }
        let mirror = Mirror(reflecting: value)
        if mirror.children.isEmpty { return String(reflecting: value) }
        var members = mirror.children.map { ($0.label ?? "") + ": " + canonical($0.value) }
        if mirror.displayStyle == .dictionary || mirror.displayStyle == .set { members.sort() }
        return "\(mirror.subjectType)(" + members.joined(separator: ", ") + ")"
    }

    static let assertion =
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":"BB"},"authenticatorAttachment":"platform","clientExtensionResults":{}}"#

    static let assertions = [
        assertion,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA","userHandle":null},"clientExtensionResults":{"credProps":{"rk":true}},"extra":[1,2,{"x":null}]}"#,
        // Missing members, at the top and nested.
        #"{"rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key"}"#,
        // Values of another type, and null where a value must be.
        #"{"id":7,"rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":true,"authenticatorData":"AA","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":"nope"}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":[]}"#,
        #"{"id":null,"rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"},"clientExtensionResults":{"credProps":{"rk":1}}}"#,
        #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"},"clientExtensionResults":[]}"#,
        #"[]"#, #""text""#, #"null"#, #"3"#,
    ]

    /// The sign-in body through the tree decoder, Foundation's decoder and its own reading of the tree
    /// (`DirectJSONDecodable`): one outcome.
    @Test(arguments: assertions + directAssertions)
    func eachAssertionBody(_ body: String) throws {
        let (tree, foundation) = try Self.outcomes(AuthenticationResponseJSON.self, body)
        #expect(tree == foundation)
        let parsed = try #require(StrictJSONParser.strictValue(Array(body.utf8)))
        let direct = Self.describe { try AuthenticationResponseJSON(tree: parsed) }
        #expect(direct == foundation)
    }

    /// Every member of the sign-in body missing, `null`, and of each other type, one at a time, then the first of two
    /// faults (which one a decoder reports depends on its order).
    static let directAssertions: [String] = {
        let members: [(path: [String], value: String)] = [
            (["id"], #""AAAA""#), (["rawId"], #""AAAA""#), (["type"], #""public-key""#), (["response", "clientDataJSON"], #""e30""#),
            (["response", "authenticatorData"], #""AA""#), (["response", "signature"], #""AA""#), (["response", "userHandle"], #""BB""#),
            (["authenticatorAttachment"], #""platform""#), (["clientExtensionResults", "credProps", "rk"], "true"),
        ]
        let replacements: [String?] = [nil, "null", "7", "true", #""text""#, "[]", "{}", #"{"rk":true}"#]
        func body(_ changes: [[String]: String?]) -> String {
            func object(_ prefix: [String]) -> String {
                var parts: [String] = []
                var seen: Set<String> = []
                for member in members where member.path.starts(with: prefix) && member.path.count > prefix.count {
                    let name = member.path[prefix.count]
                    guard seen.insert(name).inserted else { continue }
                    let path = prefix + [name]
                    if let change = changes[path] {
                        if let value = change { parts.append("\"\(name)\":\(value)") }
                        continue
                    }
                    parts.append("\"\(name)\":" + (path == member.path ? member.value : object(path)))
                }
                return "{" + parts.joined(separator: ",") + "}"
            }
            return object([])
        }
        var paths = members.map(\.path)
        paths += [["response"], ["clientExtensionResults"], ["clientExtensionResults", "credProps"]]
        var bodies = paths.flatMap { path in replacements.map { body([path: $0]) } }
        bodies += [
            body([["id"]: "1", ["rawId"]: nil]), body([["type"]: "null", ["response"]: nil]),
            body([["rawId"]: nil, ["response", "signature"]: "1"]), body([["response", "authenticatorData"]: "null", ["type"]: nil]),
            body([["response", "userHandle"]: "1", ["authenticatorAttachment"]: "1"]),
            body([["clientExtensionResults", "credProps", "rk"]: #""yes""#, ["authenticatorAttachment"]: "[]"]),
        ]
        return bodies
    }()

    @Test func theOtherRequestTypes() throws {
        let bodies = [
            #"{}"#, #"{"username":"ada"}"#, #"{"username":"ada","userVerification":"required"}"#, #"{"username":null}"#,
            #"{"username":3}"#, #"{"username":["ada"]}"#, #"{"displayName":"Ada","hints":["client-device","hybrid"]}"#,
            #"{"hints":["a",2]}"#, #"{"hints":"a"}"#, #"{"hints":[null]}"#, #"{"hints":null}"#, #"{"residentKey":false}"#,
            #"{"identityToken":"x","rawNonce":"n"}"#, #"{"identityToken":"x","rawNonce":"n","fullName":{"givenName":"Ada","x":[1,true,null]}}"#,
            #"{"identityToken":"x"}"#, #"{"identityToken":"x","rawNonce":"n","fullName":"Ada"}"#,
            #"{"identityToken":"x","rawNonce":"n","fullName":null}"#,
            #"{"proof":{"mergeToken":"t"}}"#, #"{"proof":{"passkey":\#(Self.assertion)},"keep":"other"}"#, #"{"proof":{},"keep":"neither"}"#,
            #"{"proof":{"apple":{"identityToken":"x"}}}"#, #"{"proof":7}"#, #"{"keep":"current"}"#,
            #"{"username":"ada","code":"abcd-efgh"}"#, #"{"code":"abcd-efgh"}"#, #"{"name":"Laptop"}"#, #"{"name":""}"#, #"{"token":"t"}"#,
            #"{"email":"a@example.com","emailVerified":true}"#, #"{"emailVerified":"yes"}"#, #"{"email":null,"displayName":"é 日本"}"#,
        ]
        for body in bodies {
            for outcome in [
                try Self.outcomes(AuthenticationController.AuthenticationOptionsRequest.self, body),
                try Self.outcomes(RegistrationController.RegistrationOptionsRequest.self, body),
                try Self.outcomes(AppleSignInController.AppleSignInRequest.self, body),
                try Self.outcomes(MergeController.MergeRequest.self, body),
                try Self.outcomes(RecoveryController.RecoveryRequest.self, body),
                try Self.outcomes(AccountController.RenameRequest.self, body),
                try Self.outcomes(AccessTokenController.IntrospectionRequest.self, body),
                try Self.outcomes(AdminUserChange.self, body),
            ] {
                #expect(outcome.tree == outcome.foundation, "\(body)")
            }
        }
    }

    @Test func scalarsAndNumbers() throws {
        for body in [
            "[1,2,3]", "[1.5]", "[-0]", "[1e3]", "[9007199254740991]", "[-9007199254740991]", "[1e400]", "[3e38]", "[1e39]", "[256]", "[-1]",
            "[true]", "[null]", #"["1"]"#, "[]", "{}",
        ] {
            for outcome in [
                try Self.outcomes([Int].self, body), try Self.outcomes([Double].self, body), try Self.outcomes([UInt8].self, body),
                try Self.outcomes([Bool].self, body), try Self.outcomes([String?].self, body), try Self.outcomes([Float].self, body),
                try Self.outcomes([JSONValue].self, body),
            ] {
                #expect(outcome.tree == outcome.foundation, "\(body)")
            }
        }
    }

    /// The one deliberate difference: an integer past 2^53, which the tree's `Double` may hold inexactly, is refused
    /// where `JSONDecoder` reads it exactly. No request member is such an integer.
    @Test func anIntegerPastTheDoublesPrecisionIsRefused() throws {
        let outcome = try Self.outcomes([Int].self, "[9007199254740993]")
        #expect(outcome.tree == "refused invalid_json -")
        #expect(outcome.foundation.contains("9007199254740993"))
    }
}

@Suite struct JSONMediaTypeTests {
    @Test(arguments: [
        "application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ", "\tapplication/json;",
        "APPLICATION/JSON;x=y;z",
    ])
    func acceptsJSON(_ value: String) {
        #expect(JSONBody.isJSON(mediaType: value))
    }

    @Test(arguments: [
        "", ";", "application/jsonx", "text/json", "application/json-patch+json", "application/ json", "application\u{0F}json",
        "xapplication/json", "application/jso", "application/json\u{00A0}", "multipart/form-data; boundary=application/json",
    ])
    func refusesAnythingElse(_ value: String) {
        #expect(!JSONBody.isJSON(mediaType: value))
    }
}
