import HTTPServer

/// The pages of a link sent by email: a confirmation whose form POSTs the token (so that a mail scanner's GET spends
/// nothing), and the result. Every value is HTML-escaped; the pages carry the OpenID pages' headers (no framing, no
/// referrer: the token is in the address).
enum EmailPages {
    static func confirmation(title: String, text: String, button: String, action: String, token: String) -> HTTPResponse {
        page(
            status: 200,
            title: title,
            body:
                "<p>\(OpenIDPages.escapedHTML(text))</p><form method=\"post\" action=\"\(action)\"><input type=\"hidden\" name=\"token\" value=\"\(OpenIDPages.escapedHTML(String(token.prefix(128))))\">"
                + "<button type=\"submit\">\(OpenIDPages.escapedHTML(button))</button></form>"
        )
    }

    static func done(title: String, text: String) -> HTTPResponse {
        page(status: 200, title: title, body: "<p>\(OpenIDPages.escapedHTML(text))</p>")
    }

    static func failure(_ error: ServerError) -> HTTPResponse {
        var response = page(
            status: error.status,
            title: "This link is not valid",
            body: "<p>\(OpenIDPages.escapedHTML(error.message))</p><p><code>\(error.code.rawValue)</code></p>"
        )
        if let retryAfter = error.storageRetryAfter { response.headers.add(retryAfter.name, retryAfter.value) }
        return response
    }

    private static func page(status: Int, title: String, body: String) -> HTTPResponse {
        let text =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
            + "<title>\(OpenIDPages.escapedHTML(title))</title><link rel=\"stylesheet\" href=\"/style.css\"><main><h1>\(OpenIDPages.escapedHTML(title))</h1>\(body)</main></html>"
        var response = HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(text.utf8))
        OpenIDPages.addPageHeaders(to: &response)
        return response
    }
}
