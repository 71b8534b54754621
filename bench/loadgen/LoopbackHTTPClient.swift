import CryptoCore
import HTTPServer

/// A minimal blocking HTTP/1.1 client over one keep-alive TLS connection: GET, and POST with a Content-Length body,
/// responses read by their Content-Length. Enough for the load generator; not a general client.
/// `@unchecked Sendable`: the load generator hands each client to one thread at a time.
final class LoopbackHTTPClient: @unchecked Sendable {
    struct Reply {
        let status: Int
        /// The status line and header fields, without the blank line; empty unless the client `keepsHeads`.
        let head: [UInt8]
        let body: [UInt8]
    }

    struct ProtocolFailure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: TLSClientConnection
    /// Whether replies carry their head (`Reply.head`): for recording a server's answers, not for the load.
    var keepsHeads = false
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 16_384)
    private static let headerEnd: [UInt8] = Array("\r\n\r\n".utf8)

    /// A connection to 127.0.0.1:`port`, from the loopback address `source` (such as 127.10.0.1) when given.
    init(port: Int, from source: String? = nil) throws {
        connection = try TLSClientConnection.dangerouslyUnverified(socket: try LoopbackSocket.connect(port: port, from: source))
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

    /// The reply at the front of `pending`, read by its Content-Length. The head is searched and read as bytes
    /// (Foundation's generic `firstRange` and `split` here were two thirds of this client's CPU per ceremony).
    private func readReply() throws -> Reply {
        var headEnd = Self.headEnd(in: pending)
        while headEnd == nil {
            try fill()
            headEnd = Self.headEnd(in: pending)
        }
        guard let headEnd else { throw ProtocolFailure(description: "no header section") }
        let (status, length) = try pending.withUnsafeBufferPointer { head throws(ProtocolFailure) in
            try Self.statusAndLength(UnsafeBufferPointer(rebasing: head[..<headEnd]))
        }
        let bodyStart = headEnd + 4
        while pending.count < bodyStart + length { try fill() }
        let head = keepsHeads ? Array(pending[..<headEnd]) : []
        let body = Array(pending[bodyStart..<(bodyStart + length)])
        pending.removeFirst(bodyStart + length)
        return Reply(status: status, head: head, body: body)
    }

    /// The offset of the blank line's `\r\n\r\n` in `bytes`, or nil.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { bytes in
            var index = 0
            while index + 4 <= bytes.count {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A { return index }
                index += 1
            }
            return nil
        }
    }

    /// The status code of an `HTTP/1.1` status line and the `Content-Length` (any case; 0 without one) of `head`.
    private static func statusAndLength(_ head: UnsafeBufferPointer<UInt8>) throws(ProtocolFailure) -> (Int, Int) {
        let prefix = Array("HTTP/1.1 ".utf8)
        guard head.count >= 12, head.prefix(9).elementsEqual(prefix), let status = decimal(head[9..<12]) else {
            throw ProtocolFailure(description: "bad status line")
        }
        let name = Array("\r\ncontent-length:".utf8)
        var index = 12
        while index + name.count <= head.count {
            let matches = (0..<name.count).allSatisfy { offset in
                let byte = head[index + offset]
                return (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == name[offset]
            }
            if matches {
                var start = index + name.count
                while start < head.count, head[start] == UInt8(ascii: " ") { start += 1 }
                var end = start
                while end < head.count, head[end] != 0x0D { end += 1 }
                guard let length = decimal(head[start..<end]) else { throw ProtocolFailure(description: "bad Content-Length") }
                return (status, length)
            }
            index += 1
        }
        return (status, 0)
    }

    private static func decimal(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private func fill() throws {
        let count = try connection.read(into: &chunk)
        guard count > 0 else { throw ProtocolFailure(description: "the server closed the connection") }
        pending += chunk[0..<count]
    }
}
