import HTTPServer
import Storage
import WebAuthnCore

/// The one error type of the server edge: a stable `code` the client sees, a safe `message`, the HTTP status,
/// and an optional detail for logs only. The mapping from core and storage errors to statuses lives here alone.
struct ServerError: Error, Sendable {
    let status: Int
    let code: String
    let message: String
    /// The step that failed (a core error code), returned to the client for debugging; never secret.
    var step: String?
    /// Extra headers (e.g. Set-Cookie to clear a dead session).
    var headers: [(String, String)] = []

    init(_ status: Int, _ code: String, _ message: String, step: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.step = step
    }

    static func badRequest(_ code: String, _ message: String) -> ServerError { ServerError(400, code, message) }
    static let notSignedIn = ServerError(401, "not_signed_in", "Sign in first.")
    static let notFound = ServerError(404, "not_found", "There is nothing here.")
    static let appleNotConfigured = ServerError(400, "apple_not_configured", "Sign in with Apple is not set up on this server.")
    static let appleUnavailable = ServerError(503, "apple_unavailable", "Apple cannot be reached right now; try again shortly.")
    /// Every identity token rejection; the precise rule goes to the log only.
    static let invalidIdentityToken = ServerError(401, "invalid_identity_token", "The Apple identity token was not accepted.")
    static let malformedNotification = ServerError(400, "invalid_notification", "The body is not a signed Apple notification.")
    static let unverifiedNotification = ServerError(401, "invalid_notification", "The Apple notification could not be verified.")

    /// A verification failure from the core, mapped to a status and a client-facing code.
    static func verification(_ error: WebAuthnError) -> ServerError {
        switch error.code {
        case "authenticatorData.userNotVerified":
            ServerError(400, "user_verification_required", "Your authenticator must verify you (PIN or biometrics).", step: error.code)
        case "authenticatorData.signCountNotIncreased":
            .possibleClone(step: error.code)
        case "credential.algorithmNotAllowed":
            ServerError(400, "algorithm_not_allowed", "The passkey uses an algorithm this server does not accept.", step: error.code)
        case "clientData.originMismatch", "clientData.topOriginMismatch", "clientData.crossOriginNotAllowed":
            ServerError(400, "origin_mismatch", "The request came from a page this server does not serve.", step: error.code)
        default:
            ServerError(400, "verification_failed", error.reason, step: error.code)
        }
    }

    /// A signature counter that did not increase (§7.2 step 23), found by the verification or by the store's write.
    static func possibleClone(step: String) -> ServerError {
        ServerError(401, "possible_clone", "This passkey's signature counter went backwards; sign-in was refused.", step: step)
    }

    /// A storage failure: conflicts are the client's; anything else is ours (503, retryable, no details leaked).
    static func storage(_ error: StorageError) -> ServerError {
        switch error.code {
        case .usernameTaken: ServerError(409, "username_taken", "That username is taken.")
        case .credentialExists: ServerError(409, "credential_exists", "This passkey is already registered.")
        case .appleIdentityTaken: ServerError(409, "apple_identity_taken", "This Apple ID is linked to another account.")
        case .notFound: ServerError(404, "not_found", "That no longer exists.")
        default: ServerError(503, "storage_unavailable", "The server cannot reach its database; try again shortly.")
        }
    }

    var response: HTTPResponse {
        var members: [String: String] = ["error": code, "message": message]
        if let step { members["step"] = step }
        var response = HTTPResponse.json(status: status, JSONBody.encode(members))
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}
