import AssociatedDomains
import HTTPEdge
import HTTPServer

/// The HTTP edge of the associated-domain files: a configured file (or its 304), or the JSON 404 `not_configured`
/// whose `key` names the configuration key that would publish it.
extension WellKnownFiles {
    /// The answer for a well-known path, or nil for any other path.
    func response(to request: HTTPRequest) -> HTTPResponse? {
        switch file(at: request.path) {
        case .success(let file):
            return file.response(to: request)
        case .failure(let missing):
            var error = ServerError(.notConfigured)
            error.key = missing.key
            return error.response
        case nil:
            return nil
        }
    }
}
