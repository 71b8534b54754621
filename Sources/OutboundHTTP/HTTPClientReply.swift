import CryptoCore
import HTTPFields

/// What the server answered: any status, 3xx included (redirects are never followed).
public struct HTTPClientReply: Sendable {
    public var status: Int
    /// Every header field of the reply in order, repeated ones included.
    public var headers: HTTPHeaders
    /// The body (empty for HEAD, 204 and 304).
    public var body: [UInt8]
    /// The TLS handshake's facts for an `https` request (verification passed, or there would be no reply); nil over
    /// plain HTTP.
    public var tls: TLSPeerFacts?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], tls: TLSPeerFacts? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.tls = tls
    }

    /// The `Location` of a redirect (or of any reply that carries one), as sent.
    public var location: String? { headers["Location"] }
}
