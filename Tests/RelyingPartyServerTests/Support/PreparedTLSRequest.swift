import CryptoCore
import Foundation
import HTTPServer

/// One HTTPS request to 127.0.0.1 whose connection and TLS handshake are made up front, so that a race can release
/// many requests at the same instant (curl would spend its start-up and handshake after the gate opens).
/// The request asks the server to close the connection; the reply is read to the end.
final class PreparedTLSRequest: @unchecked Sendable {
    private let connection: TLSClientConnection
    private let request: [UInt8]

    init(port: Int, method: String, path: String, json body: [UInt8]) throws {
        connection = try TLSClientConnection.dangerouslyUnverified(socket: try LoopbackSocket.connect(port: port))
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        request = Array(head.utf8) + body
    }

    /// Sends the request and returns the server's reply. Call once.
    func send() throws -> ServerReply {
        try connection.write(request)
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        // The server closes the TCP connection after its answer without a TLS close_notify, which OpenSSL 3 reports
        // as a read error: once bytes have come, that error ends the reply like a clean close.
        while true {
            let count = (try? connection.read(into: &buffer)) ?? 0
            guard count > 0 else { break }
            reply += buffer[..<count]
        }
        return try CurlTransport.parse(reply)
    }
}
