import HTTPEdge
import HTTPFields
import HTTPServer

/// The pages of a link sent by email: a confirmation whose form POSTs the token (so that a mail scanner's GET spends
/// nothing), the recovery page whose script does, and the result. Every value is HTML-escaped; the pages carry the OpenID pages' headers (no framing, no
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

    /// The page of a recovery link: its button runs the page's script (`recovery-page.js`, served at `scriptPath`),
    /// which spends the link for its restricted session, adds a passkey with it, ends it, and links to `signInURL`
    /// to sign in with the new passkey. The token stays in the address (the script reads it): nothing of it is written
    /// into the page, and without the script nothing is spent.
    static func recovery(signInURL: String) -> HTTPResponse {
        let messages =
            "<div id=\"status\" class=\"message message-status\" role=\"status\" aria-live=\"polite\"></div>"
            + "<div id=\"error\" class=\"message message-error\" role=\"alert\" aria-live=\"assertive\"></div>"
        let recover =
            "<section id=\"recover\"><p>Add a new passkey to your account, then sign in with it. This link works once.</p>"
            + "<button id=\"recover-create\" type=\"button\" class=\"btn btn-primary\" disabled>Add a new passkey</button>"
            + "<noscript><p>This page needs JavaScript to add a passkey.</p></noscript></section>"
        let recovered =
            "<section id=\"recovered\" hidden><p><a id=\"recovered-continue\" href=\"\(OpenIDPages.escapedHTML(signInURL))\">"
            + "Sign in with your new passkey</a></p></section>"
        return page(
            status: 200,
            title: "Recover your account",
            body: "<div id=\"app\" data-view=\"recover\" data-busy=\"false\">" + messages + recover + recovered + "</div>",
            script: scriptPath
        )
    }

    /// Where the recovery page's script is served.
    static let scriptPath = "/auth/recovery/email/page.js"

    /// The recovery page's script, compiled in.
    static func script() -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
            ]),
            body: PackageResources.recovery_page_js
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

    private static func page(status: Int, title: String, body: String, script: String? = nil) -> HTTPResponse {
        let text =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">"
            + "<title>\(OpenIDPages.escapedHTML(title))</title><link rel=\"stylesheet\" href=\"/style.css\">"
            + (script.map { "<script src=\"\(OpenIDPages.escapedHTML($0))\" defer></script>" } ?? "")
            + "<main><h1>\(OpenIDPages.escapedHTML(title))</h1>\(body)</main></html>"
        var response = HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(text.utf8))
        OpenIDPages.addPageHeaders(to: &response)
        return response
    }
}
