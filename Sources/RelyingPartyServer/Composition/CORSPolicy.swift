import HTTPServer

/// Cross-origin access to the JSON API (the Fetch standard's CORS protocol): a page of an allowed origin may call
/// every route with credentials; other origins get no CORS headers, so their pages cannot read an answer. Never `*`:
/// the answers carry credentials. Every answer of a route says `Vary: Origin`, since its headers depend on it.
struct CORSPolicy: Sendable {
    let allowedOrigins: Set<String>
    /// How long a browser may cache a preflight.
    static let preflightMaxAge = 600

    /// The CORS headers of an answer to `request`: `Access-Control-Allow-Origin` (the request's own origin) with
    /// `Access-Control-Allow-Credentials` when the origin is allowed, and `Vary: Origin` always.
    func headers(for request: HTTPRequest) -> [(String, String)] {
        guard let origin = request.headers["origin"], allowedOrigins.contains(origin) else { return [("Vary", "Origin")] }
        return [
            ("Access-Control-Allow-Origin", origin), ("Access-Control-Allow-Credentials", "true"),
            ("Access-Control-Expose-Headers", "Retry-After"), ("Vary", "Origin"),
        ]
    }

    /// The answer to a preflight (`OPTIONS`) of a route path taking `methods`: 204, with the methods and request
    /// headers a page may use when its origin is allowed and it asks for one of them; without CORS headers otherwise.
    func preflight(_ request: HTTPRequest, methods: [String]) -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        response.headers.add("Allow", (methods + ["OPTIONS"]).joined(separator: ", "))
        let asked = request.headers["access-control-request-method"]
        guard let origin = request.headers["origin"], allowedOrigins.contains(origin), let asked, methods.contains(asked) else {
            response.headers.add("Vary", "Origin")
            return response
        }
        for (name, value) in headers(for: request) { response.headers.add(name, value) }
        response.headers.add("Access-Control-Allow-Methods", methods.joined(separator: ", "))
        response.headers.add("Access-Control-Allow-Headers", "Authorization, Content-Type")
        response.headers.add("Access-Control-Max-Age", String(Self.preflightMaxAge))
        return response
    }
}
