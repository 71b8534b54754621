import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// Issue 43 item 9: a malformed request, alone or pipelined behind a valid one. The valid one is answered `200`, the
/// malformed one `400` (never `500`: behind an answer the output buffer's front is frozen, and reading the status of
/// libevent's own error page failed), and the connection closes.
@Suite(.serialized) struct PipelinedMalformedRequestTests {
    static let valid = "GET /first HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Each malformed second request, by name.
    static let malformed: [String: String] = [
        "garbage line": "GARBAGE\r\n\r\n",
        "no version": "GET /second\r\nHost: x\r\n\r\n",
        "header without a colon": "GET /second HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n",
        "no Host": "GET /second HTTP/1.1\r\n\r\n",
        "bad Content-Length": "POST /second HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
        "version 2": "GET /second HTTP/2.0\r\nHost: x\r\n\r\n",
        "binary": "\u{01}\u{02}\u{03}\r\n\r\n",
    ]

    @Test(arguments: malformed.keys.sorted(), [true, false])
    func theMalformedOneIsRefusedWith400AndTheConnectionCloses(name: String, pipelined: Bool) throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        let connection = try RawConnection(port: server.server.httpPort!)
        connection.send((pipelined ? Self.valid : "") + (Self.malformed[name] ?? ""))
        let answer = connection.receiveUntilClosed(within: 3)
        let text = String(decoding: answer.bytes, as: UTF8.self)
        #expect(answer.closed, "\(name): the connection stayed open: \(text)")
        let statusLine = try NSRegularExpression(pattern: "HTTP/1\\.1 ([0-9]{3}) ")
        let statuses = statusLine.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            (text as NSString).substring(with: $0.range(at: 1))
        }
        #expect(statuses == (pipelined ? ["200", "400"] : ["400"]), "\(name): \(text)")
        #expect(text.hasSuffix(#""}"#) && text.contains(#"{"error":"bad_request","#), "\(name): a JSON error: \(text)")
        #expect(handler.handled == (pipelined ? ["/first"] : []), "\(name)")
    }
}
