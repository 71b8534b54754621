import HTTPEdge
import JSON
import Storage

/// The app's own data on an account (`UserRecord.metadata`): a JSON object the app's backend sets through the admin API
/// and reads back there, and whose chosen members `tokens.metadataClaims` copies into access tokens. Stored as the
/// object's text as `JSONBody` writes it (members sorted, no spaces), at most `UserRecord.maximumMetadataBytes` of it
/// and `maximumDepth` levels of objects and arrays.
enum UserMetadata {
    /// The most levels of objects and arrays, the metadata object itself being the first.
    static let maximumDepth = 5

    /// The text to store for `value`; nil for `{}` (no metadata).
    /// - Throws: `400 invalid_request` (`member: metadata`) for anything but an object, one too deep or too long.
    static func text(of value: JSONValue) throws(ServerError) -> String? {
        guard case .object(let members) = value, depth(of: value) <= maximumDepth else { throw ServerError(.invalidRequest, member: "metadata") }
        if members.isEmpty { return nil }
        let text = String(decoding: JSONBody.encode(value), as: UTF8.self)
        guard text.utf8.count <= UserRecord.maximumMetadataBytes else {
            throw ServerError(.invalidRequest, member: "metadata", detail: "metadata over \(UserRecord.maximumMetadataBytes) bytes")
        }
        return text
    }

    /// The stored metadata as an object; nil when there is none (or, never expected, it is not an object).
    static func value(of text: String?) -> JSONValue? {
        guard let text, let value = StrictJSONParser.strictValue(Array(text.utf8)), case .object = value else { return nil }
        return value
    }

    /// The levels of objects and arrays of `value` (0 for a scalar).
    private static func depth(of value: JSONValue) -> Int {
        switch value {
        case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
        case .array(let items): 1 + (items.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }
}
