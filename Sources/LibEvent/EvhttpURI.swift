import CLibEvent

/// The parts of a URL as libevent's URI parser reads it (strict RFC 3986 mode).
package struct EvhttpURI {
    /// The scheme as written, nil when there is none.
    package let scheme: String?
    /// The host as written (an IPv6 literal with its brackets), nil when there is none.
    package let host: String?
    /// Whether it carries user information (credentials).
    package let hasUserInformation: Bool
    /// The port, nil when none is given.
    package let port: Int?
    /// The path ("" when empty) and the query (nil when there is none).
    package let path: String
    package let query: String?

    /// Nil when `url` is not an RFC 3986 URI.
    package init?(parsing url: String) {
        guard let uri = evhttp_uri_parse_with_flags(url, 0) else { return nil }
        defer { evhttp_uri_free(uri) }
        scheme = evhttp_uri_get_scheme(uri).map { String(cString: $0) }
        host = evhttp_uri_get_host(uri).map { String(cString: $0) }
        hasUserInformation = evhttp_uri_get_userinfo(uri) != nil
        let port = Int(evhttp_uri_get_port(uri))
        self.port = port >= 0 ? port : nil
        path = evhttp_uri_get_path(uri).map { String(cString: $0) } ?? ""
        query = evhttp_uri_get_query(uri).map { String(cString: $0) }
    }
}
