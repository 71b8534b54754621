import CryptoCore
import Foundation
import HTTPServer
import WebAuthnCore

/// JSON encoding and decoding at the HTTP edge.
enum JSONBody {
    static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    /// Decodes a request body, refusing anything that is not `application/json`, not strict JSON (a member name twice
    /// in one object, which Foundation would read first-wins and another parser last-wins; invalid UTF-8; deeper than
    /// the strict parser's limit) or not the expected shape.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: HTTPRequest) throws(ServerError) -> Value {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else { throw ServerError(.unsupportedMediaType) }
        guard StrictJSONParser.isStrict(request.body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, context) {
            throw ServerError(.invalidRequest, member: member(context.codingPath + [key]))
        } catch let DecodingError.typeMismatch(_, context) {
            throw ServerError(.invalidRequest, member: member(context.codingPath))
        } catch {
            throw ServerError(.invalidJSON)
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
    static func tree<Value: Encodable>(_ value: Value) -> JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(encode(value)))) ?? .object([:])
    }

    static func ok<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse.json(status: status, encode(value))
    }

    /// A body that writes itself (`DirectJSONBody`): the same text as `encode`'s, without Foundation's encoder.
    static func encode<Value: DirectJSONBody>(_ value: Value) -> [UInt8] {
        var object = JSONObjectWriter(capacity: 1024)
        value.write(to: &object)
        return object.finished()
    }

    static func ok<Value: DirectJSONBody>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse.json(status: status, encode(value))
    }
}
