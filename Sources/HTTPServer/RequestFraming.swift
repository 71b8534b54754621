import Glibc
import HTTPFields

/// Checks what libevent parsed of a request against the framing rules of RFC 9110 and RFC 9112 before any handler
/// sees it. libevent is lenient where a proxy in front of passkeyd may not be (it keeps `Content-Length :` as a header
/// of its own, takes the first of two `Content-Length` fields, ignores a `Transfer-Encoding` it does not know, reads
/// no body on `HEAD`, accepts `0x2` as a chunk size), so a request framed ambiguously could hide a second request
/// that one side sees and the other does not. Such a request is refused with 400 and its connection closed, so the
/// bytes after it are never read as a request.
///
/// Request bodies come with `Content-Length` only: no client of this API sends a chunked body, and refusing every
/// `Transfer-Encoding` means libevent's chunk parser never runs for a request that is served.
enum RequestFraming {
    /// A request line's version, the method and the header fields, as libevent parsed them.
    struct Request {
        let major: Int
        let minor: Int
        let isGetOrHead: Bool
        let headers: HTTPHeaders
        let path: String
    }

    /// The sentence of the 400 answer for a request that must be refused, or nil for one that may be served. One pass
    /// over the fields, since this runs for every request.
    static func refusal(_ request: Request) -> String? {
        // RFC 9112 §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT; libevent refuses majors above 1 itself.
        guard request.major == 1, request.minor >= 0 else { return "Only HTTP/1.0 and HTTP/1.1 are supported." }
        var hosts = 0
        var hasTransferEncoding = false
        var lengths = 0
        var length: String?
        for (name, value) in request.headers {
            // RFC 9110 §5.1: field-name = token. A space before the colon makes the name "Content-Length " for libevent.
            guard isToken(name) else { return "A header field name is not a token." }
            if HTTPHeaders.namesMatch(name, "host") {
                hosts += 1
            } else if HTTPHeaders.namesMatch(name, "transfer-encoding") {
                hasTransferEncoding = true
            } else if HTTPHeaders.namesMatch(name, "content-length") {
                lengths += 1
                length = length ?? value
            }
        }
        // RFC 9112 §3.2: a request without Host (HTTP/1.1) or with more than one Host field is answered with 400.
        if request.minor >= 1 && hosts == 0 { return "An HTTP/1.1 request needs a Host header." }
        if hosts > 1 { return "A request has one Host header." }
        // RFC 9112 §6.1: Transfer-Encoding overrides Content-Length, and a server may refuse codings; this one takes none.
        if hasTransferEncoding { return "Transfer-Encoding is not accepted: send the body with Content-Length." }
        // RFC 9112 §6.3: several Content-Length fields, or a value that is not 1*DIGIT, make the framing invalid.
        if lengths > 1 { return "A request has at most one Content-Length header." }
        if let length {
            guard !length.isEmpty, length.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return "Content-Length must be a decimal number."
            }
            // RFC 9110 §9.3.1/§9.3.2: a body on GET or HEAD has no meaning, and proxies disagree on whether it exists.
            if request.isGetOrHead && length.utf8.contains(where: { $0 != UInt8(ascii: "0") }) {
                return "A GET or HEAD request has no body."
            }
        }
        // RFC 3986 §7.3: a percent-encoded NUL in the path would cut the name that reaches the file system or a log.
        var path = request.path
        let hasNUL = path.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
        if hasNUL { return "The request path contains a NUL byte." }
        return nil
    }

    /// Whether `name` is an RFC 9110 token: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenCharacter)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
