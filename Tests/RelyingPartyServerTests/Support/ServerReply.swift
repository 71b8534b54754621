import Foundation
import HTTPFields
import HTTPServer

/// One answer of the server, whichever way it was reached (directly or over HTTPS), with JSON helpers.
struct ServerReply {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers, body: response.body)
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object; an empty dictionary when it is not one (so that expectations on it fail).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// The `error` member of an error body.
    var errorCode: String? { object["error"] as? String }

    /// Decodes the body as `type`.
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(body))
    }
}
