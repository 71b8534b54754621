import CryptoCore
import LibEvent

#if canImport(Glibc)
import Glibc
#endif

/// Where a request goes, from its URL as libevent's URI parser (strict RFC 3986 mode) read it, after the client's
/// policy: `https`, or `http` only to a loopback address; a host; no credentials.
struct HTTPClientTarget: Sendable, Equatable {
    let isSecure: Bool
    /// The host in lower case, without the brackets of an IPv6 literal: the name the certificate must match.
    let host: String
    let port: Int
    /// The path (or "/") and the query, as sent on the request line.
    let requestTarget: String
    /// The numeric address to connect to without a name lookup: an address literal, or 127.0.0.1 for `localhost`
    /// (RFC 6761 §6.3: localhost is loopback, whatever a resolver says). Nil when the host must be resolved.
    let literalAddress: String?

    /// The longest URL accepted.
    static let maximumURLLength = 8_192

    init(url: String) throws(HTTPClientError) {
        guard url.utf8.count <= Self.maximumURLLength, !url.utf8.contains(0) else {
            throw HTTPClientError(.urlInvalid, "the URL is empty, too long or contains NUL")
        }
        guard let uri = EvhttpURI(parsing: url) else {
            throw HTTPClientError(.urlInvalid, "the URL is not an RFC 3986 URI")
        }
        let scheme = uri.scheme?.lowercased()
        guard let rawHost = uri.host, !rawHost.isEmpty else {
            throw HTTPClientError(.urlInvalid, "the URL has no host")
        }
        var host = rawHost.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !uri.hasUserInformation else {
            throw HTTPClientError(.urlInvalid, "the URL for \(host) carries credentials, which are never sent")
        }
        switch scheme {
        case "https":
            isSecure = true
        case "http" where Self.isLoopback(host):
            isSecure = false
        case "http":
            throw HTTPClientError(.schemeRefused, "http://\(host) is not a loopback address: use https://")
        default:
            throw HTTPClientError(.schemeRefused, "the scheme \(scheme.map { "\"\($0)\"" } ?? "(none)") is not https")
        }
        let port = uri.port ?? 0
        self.port = port > 0 ? port : (isSecure ? 443 : 80)
        guard (1...65_535).contains(self.port) else { throw HTTPClientError(.urlInvalid, "the port of \(host) is out of range") }
        self.host = host
        let path = uri.path
        let query = uri.query.map { "?" + $0 } ?? ""
        requestTarget = (path.isEmpty ? "/" : path) + query
        literalAddress = host == "localhost" ? "127.0.0.1" : (TLSClientSession.isIPAddress(host) ? host : nil)
    }

    /// The `Host` header: the host (an IPv6 literal in brackets) and the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// "https://host:port", the only part of a URL that reasons show.
    var origin: String {
        "\(isSecure ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Whether `host` is 127.0.0.0/8 or ::1 written as an address literal, or `localhost` (any case, brackets allowed).
    static func isLoopback(_ host: String) -> Bool {
        var bare = host.lowercased()
        if bare.hasPrefix("[") && bare.hasSuffix("]") {
            bare = String(bare.dropFirst().dropLast())
        }
        if bare == "localhost" { return true }
        var address4 = in_addr()
        if inet_pton(AF_INET, bare, &address4) == 1 {
            return UInt32(bigEndian: address4.s_addr) >> 24 == 127
        }
        var address6 = in6_addr()
        var loopback6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &address6) == 1, inet_pton(AF_INET6, "::1", &loopback6) == 1 else { return false }
        return withUnsafeBytes(of: &address6) { left in withUnsafeBytes(of: &loopback6) { right in left.elementsEqual(right) } }
    }
}
