import HTTPServer

/// Calls `RelyingPartyServer.handle` directly, without sockets.
struct DirectTransport: Transport {
    let handler: any HTTPHandler

    func send(_ method: String, _ path: String, body: [UInt8]?, headers: [(String, String)]) throws -> ServerReply {
        var fields = headers
        if body != nil, !fields.contains(where: { $0.0.lowercased() == "content-type" }) {
            fields.append(("Content-Type", "application/json"))
        }
        return ServerReply(handler.handle(HTTPRequest(method: method, path: path, headers: HTTPHeaders(fields), body: body ?? [])))
    }
}
