import CryptoCore
import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// One HTTPS keep-alive connection to 127.0.0.1 that sends requests one after another and reads each answer by its
/// `Content-Length`, for the tests of what happens to open connections (reload, stop).
final class KeepAliveConnection {
    private let connection: TLSClientConnection

    init(port: Int) throws {
        // Writing to a connection the server closed must fail, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        connection = try TLSClientConnection.dangerouslyUnverified(socket: try LoopbackSocket.connect(port: port))
    }

    /// The SHA-256 of the certificate this connection was served with.
    var certificateSHA256: [UInt8] { connection.peerCertificateSHA256 }

    /// Sends raw bytes (part of a request, say).
    func write(_ text: String) throws {
        try connection.write(Array(text.utf8))
    }

    /// `GET path` on this connection, kept open.
    func get(_ path: String) throws -> ServerReply {
        try write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try readReply()
    }

    /// Reads one whole answer (head and a `Content-Length` body).
    func readReply() throws -> ServerReply {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = received.firstRange(of: separator)?.lowerBound {
                let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end + separator.count + length { return try CurlTransport.parse(received) }
            }
            let count = try connection.read(into: &buffer)
            guard count > 0 else { throw TransportFailure("the server closed the connection after \(received.count) bytes") }
            received += buffer[..<count]
        }
    }
}
