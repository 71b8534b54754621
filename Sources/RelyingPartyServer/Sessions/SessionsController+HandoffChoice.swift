import CryptoCore
import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer

/// The hand-off link in a browser that is not the app's fresh web view: one that came from another site (its
/// `SameSite=Strict` cookie not sent) goes round once through this origin; one that holds another account's session
/// is asked whether to switch, and only a form posted from this origin switches it (login CSRF: a link someone else
/// made must not silently replace a live session).
extension SessionsController {
    /// The path the choice page's "Switch" posts to (form `code=…`).
    static let handoffSwitchPath = "/session/handoff/switch"

    /// Whether the navigation came from another site (Fetch Metadata): the session cookie was then not sent.
    static func cameFromAnotherSite(_ request: HTTPRequest) -> Bool {
        ["cross-site", "same-site"].contains(request.headers["sec-fetch-site"]?.lowercased() ?? "")
    }

    /// A page that opens the same link again from this origin, so that the browser's cookie comes with it; the code is
    /// not spent on the way.
    static func sameOriginBounce(code: String) -> HTTPResponse {
        let target = "\(handoffPath)?code=\(code)"
        return page(
            "<meta http-equiv=\"refresh\" content=\"0;url=\(target)\"><title>Signing in</title>"
                + "<main class=\"card\"><p><a href=\"\(target)\">Continue</a></p></main>"
        )
    }

    /// The choice: stay signed in as `signedInAs`, or switch to the link's account (a form with a new code).
    func handoffChoicePage(signedInAs name: String, code: String) -> HTTPResponse {
        let escapedName = OpenIDPages.escapedHTML(name)
        return Self.page(
            "<title>Switch account?</title><main class=\"card\"><h1>Switch account?</h1>"
                + "<p>You are signed in here as <strong>\(escapedName)</strong>. This link signs in to a different account.</p>"
                + "<form method=\"post\" action=\"\(Self.handoffSwitchPath)\"><input type=\"hidden\" name=\"code\" value=\"\(code)\">"
                + "<button type=\"submit\" class=\"btn btn-secondary\">Switch to the other account</button></form>"
                + "<p><a class=\"btn btn-primary\" href=\"\(OpenIDPages.escapedHTML(handoffRedirect))\">Stay signed in as \(escapedName)</a></p></main>"
        )
    }

    /// `POST /session/handoff/switch` (form `code=…`): the choice page's "Switch". A cookie-changing write: only from
    /// this origin (the page's), never from a form of another site.
    func switchHandoff(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        guard request.headers["origin"] == handoffOrigin else { throw ServerError(.crossOriginWrite) }
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw ServerError(.unsupportedMediaType)
        }
        let fields = FormFields(String(decoding: request.body.prefix(1024), as: UTF8.self))
        guard let record = try challenges.redeemCode(fields["code"] ?? "", kind: .sessionHandoff), let userID = record.userID,
            let handoff = try? JSONDecoder().decode(HandoffContext.self, from: Data(record.context))
        else { throw ServerError(.handoffCodeInvalid) }
        return try signInHandoff(userID: userID, context: handoff, request: request)
    }

    /// A small HTML page with the pages' security headers.
    private static func page(_ content: String) -> HTTPResponse {
        let text = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"/style.css\">\(content)</html>"
        var response = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(text.utf8))
        OpenIDPages.addPageHeaders(to: &response)
        return response
    }
}
