import HTTPFields
import Testing

@testable import HTTPServer

/// `RequestFraming`'s rules on their own; the attacks themselves are in `RequestSmugglingTests`.
struct RequestFramingTests {
    static func request(_ headers: [(String, String)], major: Int = 1, minor: Int = 1, isGetOrHead: Bool = false) -> RequestFraming.Request {
        RequestFraming.Request(major: major, minor: minor, isGetOrHead: isGetOrHead, headers: HTTPHeaders(headers), path: "/")
    }

    @Test func fieldNamesMustBeTokens() {
        for name in ["Content-Length", "X-Ok_1!#$%&'*+.^`|~", "a"] {
            #expect(RequestFraming.isToken(name), "\(name)")
        }
        for name in ["", "Content-Length ", " Host", "a/b", "a:b", "Ä", "a\tb", "(x)", "{x}", "a\"b", "a,b", "a;b", "a=b", "a?b", "a@b", "a[b]"] {
            #expect(!RequestFraming.isToken(name), "\(name)")
        }
    }

    /// RFC 9110 §5.6.2's tchar, byte by byte over ASCII.
    @Test func everyASCIIByteIsATokenCharacterExactlyWhenTheRFCSaysSo() {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        for byte in UInt8(0)...127 {
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            #expect(RequestFraming.isToken(String(decoding: [byte], as: UTF8.self)) == (isAlphanumeric || symbols.contains(byte)), "\(byte)")
        }
    }

    @Test func wellFramedRequestsPass() {
        #expect(RequestFraming.refusal(Self.request([("Host", "x")])) == nil)
        #expect(RequestFraming.refusal(Self.request([("Host", "x"), ("Content-Length", "0")], isGetOrHead: true)) == nil)
        #expect(RequestFraming.refusal(Self.request([("Host", "x"), ("Content-Length", "00")], isGetOrHead: true)) == nil)
        #expect(RequestFraming.refusal(Self.request([("Host", "x"), ("Content-Length", "17")])) == nil)
        #expect(RequestFraming.refusal(Self.request([], minor: 0)) == nil)
    }

    @Test func ambiguousFramingIsRefused() {
        let refused: [RequestFraming.Request] = [
            Self.request([("Host", "x")], major: 0, minor: 9),
            Self.request([("Host", "x")], minor: -1),
            Self.request([]),
            Self.request([("Host", "x"), ("host", "y")]),
            Self.request([("Host", "x"), ("Transfer-Encoding", "chunked")]),
            Self.request([("Host", "x"), ("Content-Length", "1"), ("Content-Length", "1")]),
            Self.request([("Host", "x"), ("Content-Length", "")]),
            Self.request([("Host", "x"), ("Content-Length", " 1")]),
            Self.request([("Host", "x"), ("Content-Length", "1,1")]),
            Self.request([("Host", "x"), ("Content-Length", "-1")]),
            Self.request([("Host", "x"), ("Content-Length", "1")], isGetOrHead: true),
        ]
        for request in refused {
            #expect(RequestFraming.refusal(request) != nil, "\(request.headers.map { "\($0.name): \($0.value)" }) \(request.major).\(request.minor)")
        }
    }
}
