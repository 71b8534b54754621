import CryptoCore
import Foundation
import HTTPServer
import JSON
import WebAuthnCore

/// JSON encoding and decoding at the HTTP edge.
package enum JSONBody {
    /// Whether a body's unknown members are refused (`unknown_member`, naming the member) instead of ignored: true for
    /// every handler the admin listener runs (`AdminAPI` sets it around the handler), so that no admin call drops a
    /// member it does not take (`{"disabled": true}` to a server without it) and answers as if it had done it. The
    /// public API ignores them: browsers and WebAuthn libraries add members of their own.
    @TaskLocal package static var refusesUnknownMembers = false

    package static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        JSONEncoding.encode(value)
    }

    /// Decodes a request body, refusing anything that is not `application/json`, not strict JSON (a member name twice
    /// in one object, which Foundation would read first-wins and another parser last-wins; invalid UTF-8; deeper than
    /// the strict parser's limit) or not the expected shape.
    package static func decode<Value: Decodable>(_ type: Value.Type, from request: HTTPRequest) throws(ServerError) -> Value {
        let tree = try tree(of: request)
        do {
            return try JSONValueDecoder.decode(type, from: tree, refusingUnknownMembers: refusesUnknownMembers)
        } catch {
            throw refusal(error)
        }
    }

    /// A body that reads itself from the tree (`DirectJSONDecodable`): the same outcome as `decode`'s for any
    /// `Decodable`, without the `Decoder` protocol.
    package static func decode<Value: DirectJSONDecodable>(_ type: Value.Type, from request: HTTPRequest) throws(ServerError) -> Value {
        let tree = try tree(of: request)
        do {
            if refusesUnknownMembers { return try JSONValueDecoder.decode(type, from: tree, refusingUnknownMembers: true) }
            return try Value(tree: tree)
        } catch {
            throw refusal(error)
        }
    }

    private static func tree(of request: HTTPRequest) throws(ServerError) -> JSONValue {
        guard let contentType = request.headers["content-type"], isJSON(mediaType: contentType) else { throw ServerError(.unsupportedMediaType) }
        guard let tree = StrictJSONParser.strictValue(request.body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        return tree
    }

    /// Whether a Content-Type names `application/json` (any case, parameters such as `charset` after a `;`, spaces or
    /// tabs around the type).
    package static func isJSON(mediaType: String) -> Bool {
        var mediaType = mediaType
        return mediaType.withUTF8 { bytes in
            let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == 0x09 }
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            let expected: StaticString = "application/json"
            guard end - start == expected.utf8CodeUnitCount else { return false }
            // ASCII letters compared without case; `expected` is lowercase.
            for offset in 0..<expected.utf8CodeUnitCount {
                let byte = bytes[start + offset]
                let lowercased = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                guard lowercased == expected.utf8Start[offset] else { return false }
            }
            return true
        }
    }

    /// The answer to a body of the wrong shape: the member a decoder found missing or of another type, else
    /// `invalid_json` (a `null` where a value must be, a number that does not fit); `unknown_member` for a member
    /// nobody asked for.
    package static func refusal(_ error: any Error) -> ServerError {
        switch error {
        case let unknown as UnknownMemberError: ServerError(.unknownMember, member: unknown.path)
        case DecodingError.keyNotFound(let key, let context): ServerError(.invalidRequest, member: member(context.codingPath + [key]))
        case DecodingError.typeMismatch(_, let context): ServerError(.invalidRequest, member: member(context.codingPath))
        default: ServerError(.invalidJSON)
        }
    }

    /// A member's path as the client wrote it (`response.clientDataJSON`, `hints[1]`); nil for the body itself.
    private static func member(_ path: [any CodingKey]) -> String? {
        let text = path.reduce("") { text, key in
            if let index = key.intValue { return text + "[\(index)]" }
            return text.isEmpty ? key.stringValue : text + "." + key.stringValue
        }
        return text.isEmpty ? nil : text
    }

    /// `value` as a JSON tree, encoded as `encode` does (for the extra members of an error body).
    package static func tree<Value: Encodable>(_ value: Value) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(encode(value)))) ?? .object([:])
    }

    package static func ok<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse.json(status: status, encode(value))
    }

    /// A body that writes itself (`DirectJSONBody`): the same text as `encode`'s, without Foundation's encoder.
    package static func encode<Value: DirectJSONBody>(_ value: Value) -> [UInt8] {
        var object = JSONObjectWriter(capacity: 1024)
        value.write(to: &object)
        return object.finished()
    }

    package static func ok<Value: DirectJSONBody>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse.json(status: status, encode(value))
    }
}
