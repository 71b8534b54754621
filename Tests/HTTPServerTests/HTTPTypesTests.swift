import HTTPFields
import Testing

@testable import HTTPServer

/// The value types, without sockets.
struct HTTPTypesTests {
    @Test func headersAreCaseInsensitiveAndOrdered() {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Set-Cookie", "a=1")])
        headers.add("set-cookie", "b=2")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["missing"] == nil)
        #expect(headers.values("SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers.map(\.name) == ["Content-Type", "Set-Cookie", "set-cookie"])
    }

    @Test func headerNamesMatchIgnoringASCIICaseOnly() {
        #expect(HTTPHeaders.namesMatch("X-Request-ID", "x-request-id"))
        #expect(!HTTPHeaders.namesMatch("Content-Type", "Content-Typ"))
        #expect(!HTTPHeaders.namesMatch("Content-Type", "Content_Type"))
        #expect(!HTTPHeaders.namesMatch("a@", "a`"))
        #expect(!HTTPHeaders.namesMatch("a[", "a{"))
        #expect(HTTPHeaders.namesMatch("", ""))
    }

    @Test func jsonResponseHasContentType() {
        let response = HTTPResponse.json(status: 201, Array("{}".utf8))
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.body == Array("{}".utf8))
    }

    @Test func handlersCanBeCalledWithoutSockets() {
        let request = HTTPRequest(
            method: "POST",
            path: "/x",
            query: "a=1",
            headers: HTTPHeaders(),
            body: [1, 2, 3],
            remoteAddress: "10.0.0.1",
            isSecure: true
        )
        let response = EchoHandler().handle(request)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""bodyLength":3"#))
    }

    @Test func reasonPhrases() {
        #expect(HTTPResponse.reasonPhrase(for: 200) == "OK")
        #expect(HTTPResponse.reasonPhrase(for: 413) == "Content Too Large")
        #expect(HTTPResponse.reasonPhrase(for: 599) == "Server Error")
    }

    @Test func dateIsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_800_000_000) == "Fri, 15 Jan 2027 08:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Fri, 15 Jan 2027 08:00:00 GMT") == 1_800_000_000)
        // Only the IMF-fixdate that names its own weekday and a real day; the obsolete forms are not read.
        for text in [
            "Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "", "Sun, 06 Nov 1994 08:49:+7 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test func errorResponsesAreJSON() {
        let text = String(decoding: ErrorResponse.raw(status: 413, date: "D", maximumBodySize: 10, maximumHeaderSize: 20), as: UTF8.self)
        #expect(
            text == "HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\nContent-Length: 76\r\nDate: D\r\nConnection: close\r\n\r\n"
                + #"{"error":"request_too_large","message":"The request body exceeds 10 bytes."}"#
        )
    }
}
