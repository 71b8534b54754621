/// One object of a request body's tree, read member by member by a type that reads itself (the server's
/// `DirectJSONDecodable`), with the errors `JSONValueDecoder` throws for the same tree (so the server's
/// `JSONBody.refusal` answers alike): `keyNotFound` for a missing member, `valueNotFound` for a `null` where a value
/// must be, `typeMismatch` for a value of another type, each with the member's coding path. Unknown members are
/// ignored.
package struct JSONTreeObject {
    /// A member's name in a coding path.
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private let members: [String: JSONValue]
    private let path: [any CodingKey]

    /// `value` as an object at `path`.
    package init(_ value: JSONValue, path: [any CodingKey] = []) throws(DecodingError) {
        switch value {
        case .object(let members):
            self.members = members
            self.path = path
        case .null:
            throw .valueNotFound(
                [String: Any].self,
                .init(codingPath: path, debugDescription: "Cannot get keyed decoding container -- found null value instead")
            )
        default:
            throw Self.mismatch([String: Any].self, path)
        }
    }

    package func string(_ name: String) throws(DecodingError) -> String {
        let key = MemberKey(stringValue: name)
        switch members[name] {
        case .string(let text)?: return text
        case nil: throw .keyNotFound(key, .init(codingPath: path, debugDescription: "No value associated with key \(name)."))
        case .null?:
            throw .valueNotFound(
                String.self,
                .init(codingPath: path + [key], debugDescription: "Cannot get value of type String -- found null value instead")
            )
        default: throw Self.mismatch(String.self, path + [key])
        }
    }

    /// A string member that may be absent or `null`.
    package func optionalString(_ name: String) throws(DecodingError) -> String? {
        switch members[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Self.mismatch(String.self, path + [MemberKey(stringValue: name)])
        }
    }

    /// A boolean member that may be absent or `null`.
    package func optionalBool(_ name: String) throws(DecodingError) -> Bool? {
        switch members[name] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw Self.mismatch(Bool.self, path + [MemberKey(stringValue: name)])
        }
    }

    package func object(_ name: String) throws(DecodingError) -> JSONTreeObject {
        let key = MemberKey(stringValue: name)
        guard let value = members[name] else {
            throw .keyNotFound(key, .init(codingPath: path, debugDescription: "No value associated with key \(name)."))
        }
        return try JSONTreeObject(value, path: path + [key])
    }

    /// An object member that may be absent or `null`.
    package func optionalObject(_ name: String) throws(DecodingError) -> JSONTreeObject? {
        switch members[name] {
        case nil, .null?: return nil
        case let value?: return try JSONTreeObject(value, path: path + [MemberKey(stringValue: name)])
        }
    }

    private static func mismatch(_ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found another type instead."))
    }
}
