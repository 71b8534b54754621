import Foundation
import HTTPServer

/// JSON encoding and decoding at the HTTP edge.
enum JSONBody {
    static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    /// Decodes a request body, refusing anything that is not `application/json` or not the expected shape.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: HTTPRequest) throws(ServerError) -> Value {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard contentType == "application/json" else {
            throw ServerError(415, "unsupported_media_type", "Send the request body as application/json.")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .badRequest("invalid_request", "The request needs \(key.stringValue).")
        } catch let DecodingError.typeMismatch(_, context) {
            throw .badRequest(
                "invalid_request",
                "The request member \(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type."
            )
        } catch {
            throw .badRequest("invalid_json", "The request body is not the JSON this endpoint expects.")
        }
    }

    static func ok<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse.json(status: status, encode(value))
    }
}
