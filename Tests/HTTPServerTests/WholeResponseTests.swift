import Foundation
import HTTPFields
import TestSupport
import Testing

@testable import HTTPServer

/// Answers that keep their connection as it is are written whole by passkeyd (`ResponseSerializer`) and handed to
/// evhttp as one chunk; the rest (`Connection: close`, HTTP/1.0, a proxy request, HEAD, 204/304) go through evhttp's
/// header list. Both kinds must frame alike: the status line, the fields, `Content-Length`, `Date`, the connection
/// kept or closed.
@Suite(.serialized) struct WholeResponseTests {
    @Test func theBytesAreTheStatusLineTheFieldsAndTheBody() {
        let bytes = ResponseSerializer.bytes(
            status: 201,
            headers: HTTPHeaders([("Content-Type", "application/json"), ("content-length", "999"), ("X-A", "1")]),
            body: Array("{}".utf8),
            date: "Wed, 02 Dec 2026 05:00:00 GMT",
            strictTransportSecurity: "max-age=31536000"
        )
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-A: 1\r\nContent-Length: 2\r\n"
                + "Date: Wed, 02 Dec 2026 05:00:00 GMT\r\nStrict-Transport-Security: max-age=31536000\r\n\r\n{}"
        )
    }

    @Test func aHandlersOwnDateAndStrictTransportSecurityAreNotRepeated() {
        let bytes = ResponseSerializer.bytes(
            status: 200,
            headers: HTTPHeaders([("date", "Thu, 01 Jan 2026 00:00:00 GMT"), ("strict-transport-security", "max-age=1")]),
            body: [],
            date: "Wed, 02 Dec 2026 05:00:00 GMT",
            strictTransportSecurity: "max-age=31536000"
        )
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\ndate: Thu, 01 Jan 2026 00:00:00 GMT\r\nstrict-transport-security: max-age=1\r\nContent-Length: 0\r\n\r\n"
        )
    }

    /// A field whose name or value holds CR, LF or NUL would start a field or a body of the client's choosing: it is
    /// dropped whole, and the fields around it stay.
    @Test(arguments: [
        ("X-Injected", "a\r\nSet-Cookie: session=attacker"), ("X-Injected", "a\nb"), ("X-Injected", "a\rb"), ("X-Injected", "a\u{0}b"),
        ("X-In\r\njected", "a"), ("X-In\u{0}jected", "a"),
    ])
    func fieldsWithLineBreaksOrNULAreDropped(name: String, value: String) {
        let bytes = ResponseSerializer.bytes(
            status: 200,
            headers: HTTPHeaders([("X-Before", "1"), (name, value), ("X-After", "2")]),
            body: [],
            date: "D",
            strictTransportSecurity: "max-age=1\r\nX-Evil: 1"
        )
        #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nX-Before: 1\r\nX-After: 2\r\nContent-Length: 0\r\nDate: D\r\n\r\n")
    }

    /// The check reads eight bytes at a time, then the rest one by one: CR, LF and NUL are found at every position of
    /// texts from 1 to 40 bytes long, and the other bytes below 0x0E (a tab among them), which share a word test with
    /// them, are let through.
    @Test func lineBreaksAndNULAreFoundAtEveryPosition() {
        for length in 1...40 {
            for position in 0..<length {
                for forbidden: UInt8 in [0x0D, 0x0A, 0x00] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = forbidden
                    #expect(!bytes.withUnsafeBufferPointer(ResponseSerializer.isFieldText), "\(length) \(position) \(forbidden)")
                }
                for allowed: UInt8 in [0x01, 0x09, 0x0B, 0x0C, 0x0E, 0x7F, 0x80, 0xFF] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = allowed
                    #expect(bytes.withUnsafeBufferPointer(ResponseSerializer.isFieldText), "\(length) \(position) \(allowed)")
                }
            }
        }
        #expect(ResponseSerializer.isFieldText(""))
    }

    /// The response is written into memory sized beforehand: the count covers the longest status, reason, length,
    /// and fields of any size, including the dropped ones, with nothing left unwritten.
    @Test(arguments: [0, 1, 15, 16, 300, 70_000])
    func theCountedCapacityHoldsTheResponse(size: Int) {
        let value = String(repeating: "v", count: size)
        let headers = HTTPHeaders([("X-\(size)", value), ("X-Dropped", value + "\r\n"), ("Date", value)])
        let body = [UInt8](repeating: 0x41, count: size)
        for status in [100, 200, 404, 599, 999] {
            let capacity = ResponseSerializer.capacity(
                status: status,
                headers: headers,
                body: body,
                date: "D",
                strictTransportSecurity: value
            )
            let bytes = ResponseSerializer.bytes(status: status, headers: headers, body: body, date: "D", strictTransportSecurity: value)
            #expect(bytes.count <= capacity)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 \(status) "))
            #expect(text.contains("\r\nContent-Length: \(size)\r\n"))
            #expect(text.contains("\r\nStrict-Transport-Security: \(value)\r\n\r\n"))
            #expect(!text.contains("X-Dropped"))
            #expect(bytes.suffix(size) == body[...])
        }
    }

    /// Over the wire: each way of asking to keep or close the connection, pipelined twice on one connection.
    @Test(
        arguments: [
            // HTTP/1.1 keep-alive, without and with the option: written whole, the connection stays.
            ("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\n", nil as String?, false),
            ("GET /a HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive\r\n\r\n", "HTTP/1.1 200 OK\r\n", nil, false),
            // The rest through evhttp's list, which adds the Connection field they call for and closes where they ask it to.
            ("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 200 OK\r\n", "Connection: close\r\n", true),
            ("GET /a HTTP/1.0\r\n\r\n", "HTTP/1.0 200 OK\r\n", nil, true),
            ("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "HTTP/1.0 200 OK\r\n", "Connection: keep-alive\r\n", false),
            ("GET http://x/a HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200 OK\r\n", nil, true),
        ] as [(String, String, String?, Bool)]
    )
    func theConnectionIsKeptOrClosedAsAsked(request: String, statusLine: String, connectionField: String?, closes: Bool) throws {
        let server = try TestServer(handler: RecordingHandler())
        let connection = try RawConnection(port: server.server.httpPort!)
        #expect(connection.send(request + request))
        let (bytes, closed) = connection.receiveUntilClosed(within: closes ? 3 : 0.5)
        let text = String(decoding: bytes, as: UTF8.self)
        let answers = text.components(separatedBy: statusLine).count - 1
        #expect(answers == (closes ? 1 : 2), "\(request): \(text)")
        #expect(closed == closes, "\(request): \(text)")
        #expect(text.hasSuffix(#"{"ok":true}"#), "\(request): \(text)")
        #expect(text.contains("Content-Length: 11\r\n") && text.contains("Date: "), "\(request): \(text)")
        if let connectionField {
            #expect(text.contains(connectionField), "\(request): \(text)")
        } else {
            #expect(!text.lowercased().contains("connection:"), "\(request): \(text)")
        }
    }

    /// A handler's own `Connection: close` closes the connection after its answer.
    @Test func aHandlersConnectionCloseIsHonoured() throws {
        let server = try TestServer(handler: FixedHandler(headers: [("Connection", "close")]))
        let connection = try RawConnection(port: server.server.httpPort!)
        #expect(connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"))
        let (bytes, closed) = connection.receiveUntilClosed(within: 3)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(closed)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 2, "one answer: \(text)")
    }

    /// Over HTTPS, on both paths (written whole, and through evhttp's list for `Connection: close`), what a handler put
    /// in a field with a line break (an obsolete folding included, which evhttp alone would send) or a NUL never
    /// reaches the client; the rest of the answer does.
    @Test(arguments: [[], ["-H", "Connection: close"]])
    func anInjectedFieldNeverReachesTheClient(options: [String]) throws {
        let server = try TestServer(
            handler: FixedHandler(headers: [
                ("X-Injected", "a\r\nSet-Cookie: session=attacker"), ("X-Folded", "a\r\n b"), ("X-Cut", "a\u{0}b"), ("X-Kept", "1"),
            ])
        )
        let result = try curl(["-sk", "-i"] + options + ["\(server.httpsURL)/a"])
        #expect(result.output.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(result.output)")
        #expect(result.output.contains("X-Kept: 1\r\n"))
        #expect(result.output.contains("Strict-Transport-Security: "), "HTTPS answers carry HSTS")
        for dropped in ["Set-Cookie", "X-Injected", "X-Folded", "X-Cut"] {
            #expect(!result.output.contains(dropped), "\(dropped): \(result.output)")
        }
        #expect(result.output.hasSuffix(#"{"ok":true}"#))
    }
}

/// Answers every request with `{"ok":true}` and the given fields.
private struct FixedHandler: HTTPHandler {
    let headers: [(String, String)]

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.json(status: 200, Array(#"{"ok":true}"#.utf8))
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}
