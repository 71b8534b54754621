import ConfigurationFile
import Foundation
import HTTPEdge

/// A `GET /oauth/authorize` request, checked in the order RFC 6749 §4.1.2.1 requires: first the client and its
/// redirect URI (a failure there is an error page, never a redirect: no open redirector), then everything else (a
/// failure is an OAuth error sent to that redirect URI with the `state`).
struct AuthorizationRequest: Sendable {
    enum Prompt: String, Sendable {
        /// `none`: no page may be shown.
        case silent = "none"
        case login, consent
    }

    let client: OIDCClient
    /// The redirect URI as the request gave it (a loopback URI with its port), which the token request repeats.
    let redirectURI: String
    /// The request's `state`, echoed on every redirect; nil without one.
    let state: String?
    let scope: String
    let codeChallenge: String
    let nonce: String?
    let prompt: Prompt?
    /// Whether `prompt` lists `consent` (with `login` too, `prompt` is `.login`).
    let asksConsent: Bool
    /// `max_age` in seconds: an older sign-in must be repeated.
    let maximumAge: Int?

    /// The longest `state` and `nonce` accepted.
    static let maximumStateLength = 1024

    /// The client and redirect URI, or the error page's error.
    static func client(of fields: FormFields, in settings: OIDCSettings) throws(ServerError) -> (OIDCClient, String) {
        guard fields.problem != "client_id", let id = fields["client_id"], let client = settings.client(id: id) else {
            throw ServerError(.invalidClient, member: "client_id")
        }
        guard fields.problem != "redirect_uri", let requested = fields["redirect_uri"], client.registeredRedirectURI(requested) != nil else {
            throw ServerError(.invalidRedirectURI, member: "redirect_uri")
        }
        return (client, requested)
    }

    /// The request once its client and redirect URI are known: the error thrown is for the redirect URI.
    init(fields: FormFields, client: OIDCClient, redirectURI: String) throws(ServerError) {
        self.client = client
        self.redirectURI = redirectURI
        let state = fields["state"]
        self.state = state.map { String($0.prefix(Self.maximumStateLength)) }
        // RFC 6749 §3.1: a parameter given twice is invalid_request.
        if let problem = fields.problem { throw ServerError(.invalidRequest, member: problem) }
        guard (state?.utf8.count ?? 0) <= Self.maximumStateLength else { throw ServerError(.invalidRequest, member: "state") }
        // OpenID Connect Core §3.1.2.1: response_type is code (the authorization code flow only).
        guard let responseType = fields["response_type"] else { throw ServerError(.invalidRequest, member: "response_type") }
        guard responseType == "code" else { throw ServerError(.unsupportedResponseType, member: "response_type") }
        // §3.1.2.1: response_mode, when given, is query (the default of the code flow).
        guard fields["response_mode"] == nil || fields["response_mode"] == "query" else {
            throw ServerError(.invalidRequest, member: "response_mode")
        }
        // §3.1.2.1: scope includes openid; every scope is one the client may ask for.
        let scopes = (fields["scope"] ?? "").split(separator: " ").map(String.init)
        guard scopes.contains("openid"), scopes.allSatisfy(client.scopes.contains) else { throw ServerError(.invalidScope, member: "scope") }
        scope = client.scopes.filter(scopes.contains).joined(separator: " ")
        // RFC 7636 §4.3, RFC 9700 §2.1.1: PKCE with S256 is required of every client, the plain method refused.
        guard let challenge = fields["code_challenge"], Self.isPKCEValue(challenge) else {
            throw ServerError(.invalidRequest, member: "code_challenge")
        }
        guard fields["code_challenge_method"] == "S256" else { throw ServerError(.invalidRequest, member: "code_challenge_method") }
        codeChallenge = challenge
        let nonce = fields["nonce"]
        guard (nonce?.utf8.count ?? 0) <= Self.maximumStateLength / 2 else { throw ServerError(.invalidRequest, member: "nonce") }
        self.nonce = nonce
        // §3.1.2.1: prompt is a list; none stands alone. select_account is not a passkeyd notion.
        let prompts = (fields["prompt"] ?? "").split(separator: " ").map(String.init)
        guard prompts.count <= 1 || !prompts.contains("none"), prompts.allSatisfy({ Prompt(rawValue: $0) != nil }) else {
            throw ServerError(.invalidRequest, member: "prompt")
        }
        prompt = prompts.contains("login") ? .login : prompts.first.flatMap(Prompt.init(rawValue:))
        asksConsent = prompts.contains("consent")
        if let age = fields["max_age"] {
            guard let seconds = Int(age), seconds >= 0 else { throw ServerError(.invalidRequest, member: "max_age") }
            maximumAge = seconds
        } else {
            maximumAge = nil
        }
        // §6.1, §6.2: request objects are not supported.
        guard fields["request"] == nil, fields["request_uri"] == nil else { throw ServerError(.invalidRequest, member: "request") }
    }

    /// RFC 7636 §4.1, §4.2: 43 to 128 unreserved characters (a code verifier, or an S256 challenge's 43).
    static func isPKCEValue(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || "-._~".utf8.contains(byte)
            }
    }

    /// The redirect to the client: `redirectURI` with `parameters`, the `state` and the issuer (RFC 9207) added to its
    /// query.
    func redirect(_ parameters: [(String, String)], issuer: String) -> String {
        Self.redirect(to: redirectURI, parameters, state: state, issuer: issuer)
    }

    static func redirect(to redirectURI: String, _ parameters: [(String, String)], state: String?, issuer: String) -> String {
        var pairs = parameters
        if let state { pairs.append(("state", state)) }
        pairs.append(("iss", issuer))
        let query = pairs.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
        return redirectURI + (redirectURI.contains("?") ? "&" : "?") + query
    }
}
