import HTTPEdge
import HTTPFields
import HTTPServer

/// What the browser sees of the OpenID provider and of Apple's web flow: the pages' headers, the redirect, and the
/// error page of a request that cannot be sent back to its client.
enum OpenIDPages {
    /// The headers of every page of the OpenID provider (RFC 9700 §4.16, clickjacking; CSP Level 3): no framing, no
    /// script but passkeyd's own files, no referrer carrying the request's query to another site.
    static func addPageHeaders(to response: inout HTTPResponse) {
        response.headers.add(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
                + "base-uri 'none'; form-action 'self' https://appleid.apple.com; frame-ancestors 'none'"
        )
        response.headers.add("X-Frame-Options", "DENY")
        response.headers.add("Referrer-Policy", "no-referrer")
    }

    /// `text` with the five characters HTML gives meaning to written as character references.
    static func escapedHTML(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func redirect(to location: String) -> HTTPResponse {
        var response = HTTPResponse(status: 302, headers: HTTPHeaders([("Location", location)]), body: [])
        response.headers.add("Referrer-Policy", "no-referrer")
        return response
    }

    /// The error page of a request that cannot be sent back to its client: the code and message, for a person.
    static func errorPage(_ error: ServerError) -> HTTPResponse {
        let text =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Sign-in error</title>"
            + "<link rel=\"stylesheet\" href=\"/style.css\"><main><h1>This sign-in link is not valid</h1>"
            + "<p>\(error.message)</p><p><code>\(error.code.rawValue)</code></p></main></html>"
        var response = HTTPResponse(
            status: error.status,
            headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]),
            body: Array(text.utf8)
        )
        addPageHeaders(to: &response)
        if let retryAfter = error.storageRetryAfter { response.headers.add(retryAfter.name, retryAfter.value) }
        return response
    }
}
