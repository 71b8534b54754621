import HTTPServer

extension RelyingPartyServer {
    /// `OpenIDPages.addPageHeaders`, for Apple's web flow, whose pages are the provider's.
    static func addPageHeaders(to response: inout HTTPResponse) {
        OpenIDPages.addPageHeaders(to: &response)
    }

    /// `OpenIDPages.redirect(to:)`, for Apple's web flow.
    static func redirect(to location: String) -> HTTPResponse {
        OpenIDPages.redirect(to: location)
    }

    /// `OpenIDPages.errorPage`, for Apple's web flow.
    static func errorPage(_ error: ServerError) -> HTTPResponse {
        OpenIDPages.errorPage(error)
    }
}
