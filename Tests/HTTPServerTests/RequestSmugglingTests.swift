import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// Issue 15, request smuggling: each attack is sent on one connection, a hidden second request (`/smuggled`) behind
/// a framing that a conforming proxy and libevent read differently. The answer is a JSON 400 with the connection
/// closed, and the handler never sees `/smuggled` (nor, for most, the first request either).
@Suite(.serialized) struct RequestSmugglingTests {
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Each attack: the bytes sent, all on one connection.
    static let attacks: [String: String] = [
        // A HEAD has no body for libevent, so the "body" is parsed as the next request.
        "body on HEAD": "HEAD /first HTTP/1.1\r\nHost: x\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)",
        "body on GET": "GET /first HTTP/1.1\r\nHost: x\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)",
        // libevent keeps "Content-Length " (with the space) as a header of its own and reads no body.
        "space before the colon": "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length : \(smuggled.utf8.count)\r\n\r\n\(smuggled)",
        "header name with a slash": "POST /first HTTP/1.1\r\nHost: x\r\nContent/Length: 2\r\nContent-Length: 0\r\n\r\n\(smuggled)",
        // libevent takes the first Content-Length; a proxy taking the last sees the smuggled request as body.
        "two differing Content-Length":
            "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)",
        "two equal Content-Length": "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n\(smuggled)",
        "Content-Length with a sign": "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: +0\r\n\r\n\(smuggled)",
        // libevent ignores a Transfer-Encoding it does not know and reads no body.
        "unknown Transfer-Encoding": "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n\(smuggled)",
        // (Debian's libevent 2.1.12-stable-8+deb12u1 refuses these three itself; older builds do not.)
        "chunked, then another coding": "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n\(smuggled)",
        "Transfer-Encoding twice":
            "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n\(smuggled)",
        "Content-Length and Transfer-Encoding":
            "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n\(smuggled)",
        // libevent reads chunk sizes with strtoll, which takes "0x2" as 2; a conforming parser refuses it.
        "chunk size 0x2": "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nab\r\n0\r\n\r\n\(smuggled)",
        "chunked body": "POST /first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n\(smuggled)",
        "two Host fields": "GET /first HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n\(smuggled)",
        "HTTP/0.9 version": "GET /first HTTP/0.9\r\nHost: x\r\n\r\n\(smuggled)",
        "encoded NUL in the path": "GET /index.html%00.png HTTP/1.1\r\nHost: x\r\n\r\n\(smuggled)",
    ]

    @Test(arguments: attacks.keys.sorted())
    func smuggledRequestIsRefusedAndNeverRuns(name: String) throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        let attack = try #require(Self.attacks[name])
        let answer = Self.exchange(port: server.server.httpPort!, attack)
        let closed = answer.closed
        #expect(closed, "\(name): the connection stayed open")
        let text = String(decoding: answer.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(name): \(text)")
        #expect(text.contains("Connection: close\r\n"), "\(name): \(text)")
        if !attack.hasPrefix("HEAD ") {
            #expect(text.contains(#"{"error":"bad_request","#), "\(name): \(text)")
        }
        #expect(Self.bytesAfterFirstAnswer(answer.bytes, isHead: attack.hasPrefix("HEAD ")) == 0, "\(name): more than one answer: \(text)")
        #expect(!handler.handled.contains("/smuggled"), "\(name): the smuggled request ran")
        #expect(handler.handled.isEmpty, "\(name): the refused request reached the handler")
    }

    /// The same framing done right is served, pipelined request included: the refusals above are about framing only.
    @Test func wellFramedPipelinedRequestsAreServed() throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        let body = #"{"a":1}"#
        let requests =
            "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            + "GET /second HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
            + "HEAD /third HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let answer = Self.exchange(port: server.server.httpPort!, requests)
        let text = String(decoding: answer.bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 4, "\(text)")
        #expect(handler.handled == ["/first", "/second", "/third"])
    }

    /// The answer names HTTP/1.1 (or 1.0 for a 1.0 request), never the version text the client wrote.
    @Test(arguments: [
        ("HTTP/1.1", "HTTP/1.1 200 OK\r\n"), ("HTTP/1.0", "HTTP/1.0 200 OK\r\n"), ("HTTP/1.9", "HTTP/1.1 200 OK\r\n"),
        ("HTTP/1.01", "HTTP/1.1 200 OK\r\n"),
    ])
    func answerVersionIsNeverEchoed(version: String, statusLine: String) throws {
        let server = try TestServer(handler: RecordingHandler())
        let answer = Self.exchange(port: server.server.httpPort!, "GET /version \(version)\r\nHost: x\r\nConnection: close\r\n\r\n")
        let text = String(decoding: answer.bytes, as: UTF8.self)
        #expect(text.hasPrefix(statusLine), "\(version): \(text)")
    }

    /// `100 Continue`, which libevent writes itself with the request's version numbers, says HTTP/1.1 too.
    @Test func continueLineIsHTTP11() throws {
        let server = try TestServer(handler: RecordingHandler())
        let connection = try RawConnection(port: server.server.httpPort!)
        connection.send("POST /continue HTTP/1.9\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        let interim = String(decoding: connection.receive(within: 2, until: "\r\n\r\n"), as: UTF8.self)
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
        connection.send("{}")
        let final = String(decoding: connection.receive(within: 2, until: "}"), as: UTF8.self)
        #expect(final.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(final)")
    }

    /// How many bytes follow the first answer (its header section and its `Content-Length` body, none for HEAD).
    static func bytesAfterFirstAnswer(_ bytes: [UInt8], isHead: Bool) -> Int {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return 0 }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).lowercased()
        let length = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }.flatMap {
            Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return bytes.count - end.upperBound - (isHead ? 0 : length ?? 0)
    }

    /// Sends `request` on a new plain connection and reads until the server closes it or 3 s pass.
    static func exchange(port: Int, _ request: String) -> (bytes: [UInt8], closed: Bool) {
        guard let connection = try? RawConnection(port: port) else { return ([], false) }
        connection.send(request)
        return connection.receiveUntilClosed(within: 3)
    }
}
