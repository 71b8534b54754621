import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Synchronization

/// A local stand-in for Google's OpenID provider on 127.0.0.1 (plain HTTP, which `identityProviders` accepts for
/// loopback addresses): serves a discovery document naming Google's issuer and its own JWKS, and mints ID tokens with
/// Google's claims signed by its own keys (an RSA key, a P-256 key, and a rotated RSA key published on demand).
/// While `available` is false it answers 503; it can serve a JWKS that is not one, or a discovery document of another
/// issuer, and counts the requests it got.
///
/// `@unchecked Sendable`: `server` and `baseURL` are written only in `init`; everything else is behind `state`.
public final class GoogleStandIn: HTTPHandler, @unchecked Sendable {
    public static let issuer = "https://accounts.google.com"
    public static let webClientID = "1234-web.apps.googleusercontent.com"
    public static let androidClientID = "1234-android.apps.googleusercontent.com"
    public static let iosClientID = "1234-ios.apps.googleusercontent.com"
    /// The web client's secret the token endpoint requires, as Google's does for a web application client.
    public static let webClientSecret = "GOCSPX-stand-in-secret"

    /// What the stand-in answers.
    public enum Mode: Sendable {
        case normal
        case unavailable
        /// The JWKS endpoint answers 200 with a document that is no usable key set.
        case garbageKeys
        /// The discovery document names another issuer.
        case wrongIssuer
    }

    /// An authorization code the stand-in issued, with what its exchange must match.
    private struct Grant {
        let clientID: String
        let redirectURI: String
        let nonce: String
        let codeChallenge: String
        let subject: String
    }

    private struct State {
        var grants: [String: Grant] = [:]
        /// The `iss` the authorization response carries (RFC 9207); nil sends none.
        var responseIssuer: String? = GoogleStandIn.issuer
        /// The subject the next authorization signs in.
        var nextSubject = "110169484474386276334"
        var mode = Mode.normal
        var publishesRotatedKey = false
        var requests: [String] = []
        /// With a key, the token endpoint takes `private_key_jwt` (a client assertion it verifies) instead of the secret.
        var clientAssertionKey: PublicKey?
        var seenAssertionIDs: Set<String> = []
    }

    private let state = Mutex(State())
    private var server: HTTPServer?
    public let rsa: JWSSigningKey
    public let ec: JWSSigningKey
    /// Published only after `publishRotatedKey()`.
    public let rotated: JWSSigningKey

    /// The stand-in's base URL, e.g. http://127.0.0.1:49152.
    public private(set) var baseURL = ""

    /// The clock of the tokens the token endpoint issues.
    private let time: any TimeSource

    public init(time: any TimeSource = SystemTime()) throws {
        self.time = time
        rsa = try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 2048), algorithm: .rs256, keyID: "google-rsa-1")
        ec = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: "google-ec-1")
        rotated = try JWSSigningKey(privateKey: try PrivateKey.generateRSA(bits: 2048), algorithm: .rs256, keyID: "google-rsa-2")
        let server = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:0", threads: 1, log: .discarding), handler: self)
        server.start()
        baseURL = "http://127.0.0.1:\(server.httpPort!)"
        self.server = server
    }

    deinit {
        server?.stop()
    }

    public var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    public func publishRotatedKey() {
        state.withLock { $0.publishesRotatedKey = true }
    }

    /// The `iss` of the authorization responses (RFC 9207), nil for none.
    public var responseIssuer: String? {
        get { state.withLock { $0.responseIssuer } }
        set { state.withLock { $0.responseIssuer = newValue } }
    }

    /// The person the next authorization signs in.
    public var nextSubject: String {
        get { state.withLock { $0.nextSubject } }
        set { state.withLock { $0.nextSubject = newValue } }
    }

    /// The public key the token endpoint verifies client assertions with (`private_key_jwt`); nil: the web secret.
    public var clientAssertionKey: PublicKey? {
        get { state.withLock { $0.clientAssertionKey } }
        set { state.withLock { $0.clientAssertionKey = newValue } }
    }

    /// The paths requested so far, in order.
    public var requests: [String] { state.withLock { $0.requests } }

    public var discoveryURL: String { baseURL + "/.well-known/openid-configuration" }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let (mode, rotatedToo) = state.withLock { state in
            state.requests.append(request.path)
            return (state.mode, state.publishesRotatedKey)
        }
        if mode == .unavailable { return .json(status: 503, Array(#"{"error":"unavailable"}"#.utf8)) }
        switch (request.method, request.path) {
        case ("GET", "/.well-known/openid-configuration"):
            let issuer = mode == .wrongIssuer ? "https://accounts.example.com" : Self.issuer
            let document: [String: Any] = [
                "issuer": issuer, "jwks_uri": baseURL + "/oauth2/v3/certs", "authorization_endpoint": baseURL + "/o/oauth2/v2/auth",
                "token_endpoint": baseURL + "/token", "id_token_signing_alg_values_supported": ["RS256"],
            ]
            return .json(status: 200, (try? JWSTestSigner.json(document)) ?? [])
        case ("GET", "/oauth2/v3/certs") where mode == .garbageKeys:
            return .json(status: 200, Array(#"{"keys": [{"kty": "RSA", "kid": "x", "n": "AQAB"}]}"#.utf8))
        case ("GET", "/oauth2/v3/certs"):
            let keys = ((try? [rsa.jwk(), ec.jwk()]) ?? []) + (rotatedToo ? [(try? rotated.jwk())].compactMap { $0 } : [])
            var response = HTTPResponse.json(status: 200, Array((try? JSONEncoder().encode(["keys": keys])) ?? Data()))
            response.headers.add("Cache-Control", "public, max-age=21600, must-revalidate, no-transform")
            return response
        case ("GET", "/o/oauth2/v2/auth"):
            return authorize(Self.form(request.query ?? ""))
        case ("POST", "/token"):
            return exchange(Self.form(String(decoding: request.body, as: UTF8.self)))
        default:
            return .json(status: 404, Array("{}".utf8))
        }
    }

    /// The authorization endpoint, as if the person signed in at once: redirects to `redirect_uri` with a code, the
    /// `state` and (RFC 9207) `iss`; `prompt=none` answers `error=login_required` instead.
    private func authorize(_ query: [String: String]) -> HTTPResponse {
        guard let clientID = query["client_id"], let redirect = query["redirect_uri"], let nonce = query["nonce"], let flow = query["state"],
            let challenge = query["code_challenge"], query["code_challenge_method"] == "S256", query["response_type"] == "code"
        else { return .json(status: 400, Array(#"{"error":"invalid_request"}"#.utf8)) }
        let code = "4/" + Base64URL.encode(SystemRandom().bytes(count: 24))
        let issuer = state.withLock { state -> String? in
            state.grants[code] = Grant(clientID: clientID, redirectURI: redirect, nonce: nonce, codeChallenge: challenge, subject: state.nextSubject)
            return state.responseIssuer
        }
        var parameters = query["prompt"] == "none" ? [("error", "login_required")] : [("code", code)]
        parameters.append(("state", flow))
        if let issuer { parameters.append(("iss", issuer)) }
        let location = redirect + (redirect.contains("?") ? "&" : "?") + parameters.map { "\($0.0)=\(Self.encode($0.1))" }.joined(separator: "&")
        return HTTPResponse(status: 302, headers: HTTPHeaders([("Location", location)]), body: [])
    }

    /// The token endpoint: a code once, for the client and redirect URI it was issued to, with the PKCE verifier whose
    /// S256 is its challenge (RFC 7636 §4.6); answers the ID token.
    private func exchange(_ form: [String: String]) -> HTTPResponse {
        let refused = HTTPResponse.json(status: 400, Array(#"{"error":"invalid_grant"}"#.utf8))
        guard form["grant_type"] == "authorization_code", let code = form["code"], let verifier = form["code_verifier"],
            let grant = state.withLock({ $0.grants.removeValue(forKey: code) })
        else { return refused }
        guard form["client_id"] == grant.clientID, form["redirect_uri"] == grant.redirectURI, clientAuthenticates(form, grant.clientID),
            Base64URL.encode(DigestAlgorithm.sha256.hash(Array(verifier.utf8))) == grant.codeChallenge
        else { return refused }
        var claims = Self.claims(now: time.now, rawNonce: "", subject: grant.subject)
        claims["nonce"] = grant.nonce
        claims["aud"] = grant.clientID
        claims["azp"] = grant.clientID
        guard let token = try? sign(claims) else { return .json(status: 500, Array("{}".utf8)) }
        return .json(status: 200, Array(#"{"access_token":"ya29.x","token_type":"Bearer","expires_in":3599,"id_token":"\#(token)"}"#.utf8))
    }

    /// The web secret, or with `clientAssertionKey` only a client assertion (RFC 7523 §3, OpenID Connect Core §9):
    /// signed by that key, `iss` = `sub` = the client, `aud` this token endpoint, unexpired, its `jti` not seen before.
    private func clientAuthenticates(_ form: [String: String], _ clientID: String) -> Bool {
        guard let key = clientAssertionKey else { return form["client_secret"] == Self.webClientSecret }
        guard form["client_secret"] == nil, form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            let text = form["client_assertion"], let jws = try? CompactJWS(text),
            jws.verifySignature(with: key, allowedAlgorithms: ["ES256", "RS256"]),
            let claims = (try? JSONSerialization.jsonObject(with: Data(jws.payload))) as? [String: Any],
            claims["iss"] as? String == clientID, claims["sub"] as? String == clientID, claims["aud"] as? String == baseURL + "/token",
            let expires = claims["exp"] as? Double, expires > time.now.timeIntervalSince1970, let jti = claims["jti"] as? String
        else { return false }
        return state.withLock { $0.seenAssertionIDs.insert(jti).inserted }
    }

    private static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    private static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Google's claims for an Android sign-in at `now` with the app's hashed nonce: `aud` the web client, `azp` the
    /// Android client, a verified address.
    public static func claims(now: Date, rawNonce: String, subject: String, email: String = "person@example.com") -> [String: Any] {
        let seconds = Int(now.timeIntervalSince1970)
        return [
            "iss": issuer, "azp": androidClientID, "aud": webClientID, "sub": subject, "email": email, "email_verified": true,
            "nonce": JWSTestSigner.hashedNonce(rawNonce), "iat": seconds, "exp": seconds + 3600, "name": "A Person",
            "given_name": "A", "family_name": "Person",
        ]
    }

    /// `claims` signed as a compact JWS by `key` (the RSA key by default).
    public func sign(_ claims: [String: Any], key: JWSSigningKey? = nil) throws -> String {
        try CompactJWS.sign(payload: JWSTestSigner.json(claims), type: "JWT", with: key ?? rsa)
    }
}
