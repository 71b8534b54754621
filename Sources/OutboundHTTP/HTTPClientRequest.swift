import CryptoCore
import HTTPFields

/// One outbound request for `HTTPClient`, with its own limits. Redirects are never followed: a 3xx is the reply.
public struct HTTPClientRequest: Sendable {
    /// The methods the client sends.
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET"
        case head = "HEAD"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
        case options = "OPTIONS"
    }

    public var method: Method
    /// An absolute `https://` URL, or `http://` to a loopback address (127.0.0.0/8, ::1, localhost). Its fragment is
    /// not sent; credentials in it are refused.
    public var url: String
    /// Header fields to send. `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are the client's own and
    /// refused here; `User-Agent` defaults to the client's.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The trust anchors for this request; nil uses the client's (the system roots unless it was given a CA file).
    public var tls: TLSClientContext?
    /// Seconds to resolve the name, connect and finish the TLS handshake.
    public var connectTimeoutSeconds: Double
    /// Seconds from `send` to the complete reply, waiting for a free connection included.
    public var deadlineSeconds: Double
    /// The largest reply body accepted, in bytes; a larger one fails the request (`http.clientReplyTooLarge`).
    public var maximumReplyBodySize: Int
    /// The largest reply header section accepted, in bytes (status line excluded).
    public var maximumReplyHeaderSize: Int

    public init(
        method: Method = .get,
        url: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        tls: TLSClientContext? = nil,
        connectTimeoutSeconds: Double = 10,
        deadlineSeconds: Double = 30,
        maximumReplyBodySize: Int = 1_048_576,
        maximumReplyHeaderSize: Int = 16_384
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.tls = tls
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.deadlineSeconds = deadlineSeconds
        self.maximumReplyBodySize = maximumReplyBodySize
        self.maximumReplyHeaderSize = maximumReplyHeaderSize
    }

    /// The fields the client writes itself.
    private static let reservedFields = ["Host", "Content-Length", "Transfer-Encoding", "Connection"]

    /// Refuses reserved or malformed header fields (RFC 9110 §5.1 token names, §5.5 values without CR, LF or NUL)
    /// and limits that are not positive. Reasons name the field, never its value.
    func validate() throws(HTTPClientError) {
        guard connectTimeoutSeconds > 0, deadlineSeconds > 0, maximumReplyBodySize >= 0, maximumReplyHeaderSize > 0,
            connectTimeoutSeconds.isFinite, deadlineSeconds.isFinite
        else {
            throw HTTPClientError(.requestInvalid, "timeouts and reply limits must be positive")
        }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter) else {
                throw HTTPClientError(.requestInvalid, "a header name is not an RFC 9110 token")
            }
            guard !Self.reservedFields.contains(where: { HTTPHeaders.namesMatch($0, name) }) else {
                throw HTTPClientError(.requestInvalid, "the \(name) header is set by the client")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(.requestInvalid, "the value of \(name) contains CR, LF or NUL")
            }
        }
    }

    /// tchar of RFC 9110 §5.6.2.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
