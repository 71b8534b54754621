import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// An introspection answer (RFC 7662 §2.2): `{"active": false}` alone, or the token's facts.
    struct IntrospectionResponse: Encodable {
        let active: Bool
        var sub: String?
        var exp: Int64?
        var iat: Int64?
        var sid: String?
        var username: String?
        /// RFC 7662 §2.2 (RFC 6749 §7.1): both kinds are bearer tokens.
        var token_type: String?
        /// Which kind: `session` (an opaque session token) or `access` (a JWT access token).
        var token_use: String?
        var iss: String?
        var aud: [String]?
        var client_id: String?

        static let inactive = IntrospectionResponse(active: false)
    }

    struct IntrospectionRequest: Decodable {
        let token: String
    }

    /// `POST /introspect` (RFC 7662): for the app's backends (`Authorization: Bearer <backend key>`, one of
    /// `backends`), whether a session token or access token is live now. An access token is active only while its
    /// session is. Unknown tokens get `{"active": false}`, every kind of them after the same work: one SHA-256, one
    /// lookup by token hash, one signature verification, one lookup by session ID.
    func introspect(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        // RFC 7662 §2.1: the protected resource authenticates; the key is compared by its SHA-256 in constant time.
        guard let key = SessionService.bearer(in: request), BackendKey.matching(key, in: configuration.backends) != nil else {
            var error = ServerError(.invalidBackendKey)
            error.headers = [("WWW-Authenticate", #"Bearer realm="passkeyd introspection""#)]
            throw error
        }
        let token = try Self.introspectedToken(request)
        let now = time.now
        // A session token: found by its hash (the lookup is made for every token, as for the access token's below).
        let session = try storage { try store.session(tokenHash: SessionService.hash(token), now: now) }
        let accessToken = try tokens.session(of: AccessTokenVerifier.looksLikeJWT(token) ? token : Self.notAToken, logging: false)
        var answer = IntrospectionResponse.inactive
        if let session, !AccessTokenVerifier.looksLikeJWT(token), let user = try storage({ try store.user(id: session.userID) }) {
            answer = IntrospectionResponse(active: true)
            answer.sub = Base64URL.encode(session.userID)
            answer.exp = Int64(session.expiresAt.timeIntervalSince1970.rounded(.down))
            answer.iat = Int64(session.createdAt.timeIntervalSince1970.rounded(.down))
            answer.sid = Base64URL.encode(session.id)
            answer.username = user.name
            answer.token_use = "session"
        } else if let (session, claims) = accessToken {
            answer = IntrospectionResponse(active: true)
            answer.sub = claims.sub
            answer.exp = claims.exp
            answer.iat = claims.iat
            answer.sid = Base64URL.encode(session.id)
            answer.username = claims.username
            answer.token_use = "access"
            answer.iss = claims.iss
            answer.aud = claims.aud
            answer.client_id = configuration.relyingPartyID
        }
        if answer.active { answer.token_type = "Bearer" }
        return JSONBody.ok(answer)
    }

    /// What an opaque session token is checked as when it is an access token: well formed, and no token of anyone's.
    static let notAToken = "e30.e30.AAAA"

    /// The `token` of a form-encoded body (RFC 7662 §2.1) or of a JSON one.
    static func introspectedToken(_ request: HTTPRequest) throws(ServerError) -> String {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        let token: String?
        switch contentType {
        case "application/x-www-form-urlencoded":
            // The form's pairs (name=value joined by "&", a space written "+"), percent-decoded by Foundation; an
            // invalid encoding decodes to nothing.
            let pairs = String(decoding: request.body, as: UTF8.self).split(separator: "&").map { $0.split(separator: "=", maxSplits: 1) }
            token = pairs.first { $0.first.map(String.init) == "token" && $0.count == 2 }
                .flatMap { String($0[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
        case "application/json":
            token = try JSONBody.decode(IntrospectionRequest.self, from: request).token
        default:
            throw ServerError(.unsupportedMediaType)
        }
        guard let token, !token.isEmpty else { throw ServerError(.invalidRequest, member: "token") }
        return String(token.prefix(AccessTokenVerifier.maximumLength))
    }
}
