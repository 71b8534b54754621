import HTTPFields
import HTTPServer

/// Calls `RelyingPartyServer.handle` directly, without sockets; a `?` in the path starts the query, as libevent splits it.
struct DirectTransport: Transport {
    let handler: any HTTPHandler
    /// The client address every request comes from.
    var remoteAddress = "127.0.0.1"

    func send(_ method: String, _ path: String, body: [UInt8]?, headers: [(String, String)]) throws -> ServerReply {
        var fields = headers
        if body != nil, !fields.contains(where: { $0.0.lowercased() == "content-type" }) {
            fields.append(("Content-Type", "application/json"))
        }
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let request = HTTPRequest(
            method: method,
            path: String(parts[0]),
            query: parts.count == 2 ? String(parts[1]) : nil,
            headers: HTTPHeaders(fields),
            body: body ?? [],
            remoteAddress: remoteAddress
        )
        return ServerReply(handler.handle(request))
    }
}
