import CryptoCore
import HTTPServer

/// A minimal blocking HTTP/1.1 client over one keep-alive TLS connection: GET, and POST with a Content-Length body,
/// responses read by their Content-Length. Enough for the load generator; not a general client.
/// `@unchecked Sendable`: the load generator hands each client to one thread at a time.
final class LoopbackHTTPClient: @unchecked Sendable {
    struct Reply {
        let status: Int
        let body: [UInt8]
    }

    struct ProtocolFailure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: TLSClientConnection
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16_384)
    private static let headerEnd: [UInt8] = Array("\r\n\r\n".utf8)

    init(port: Int) throws {
        connection = try TLSClientConnection.dangerouslyUnverified(socket: try LoopbackSocket.connect(port: port))
    }

    func post(_ path: String, json body: [UInt8]) throws -> Reply {
        try post(path, contentType: "application/json", body: body)
    }

    func post(_ path: String, contentType: String, body: [UInt8]) throws -> Reply {
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
        try connection.write(Array(head.utf8) + body)
        return try readReply()
    }

    func get(_ path: String) throws -> Reply {
        try connection.write(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        return try readReply()
    }

    private func readReply() throws -> Reply {
        var headerRange = pending.firstRange(of: Self.headerEnd)
        while headerRange == nil {
            try fill()
            headerRange = pending.firstRange(of: Self.headerEnd)
        }
        guard let headerRange else { throw ProtocolFailure(description: "no header section") }
        let head = String(decoding: pending[..<headerRange.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "),
            let status = Int(statusLine.dropFirst(9).prefix(3))
        else {
            throw ProtocolFailure(description: "bad status line")
        }
        var length = 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        let bodyStart = headerRange.upperBound
        while pending.count < bodyStart + length { try fill() }
        let body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return Reply(status: status, body: body)
    }

    private func fill() throws {
        let count = try connection.read(into: &chunk)
        guard count > 0 else { throw ProtocolFailure(description: "the server closed the connection") }
        pending += chunk[0..<count]
    }
}
