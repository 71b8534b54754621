import AccessTokens
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage

/// Opaque random session tokens; only their SHA-256 is stored. Accepted as `Authorization: Bearer` or the
/// `__Host-passkeyd_session` cookie (Secure, Path=/, no Domain: a sibling site cannot plant one).
struct SessionService: Sendable {
    static let cookieName = "__Host-passkeyd_session"
    /// The random bytes of a session token.
    static let tokenLength = 32
    /// The random bytes a new session takes: its token's and its ID's.
    static let randomLength = tokenLength + SessionRecord.idLength

    let store: any SessionStore
    let random: any RandomSource
    let time: any TimeSource
    let lifetime: TimeInterval
    /// Resolves access tokens carried as `Authorization: Bearer` to their sessions.
    let accessTokens: AccessTokenService

    struct Issued {
        let token: String
        let expiresAt: Date
        /// The session's record, as the sign-in stores it (what its access tokens name).
        let session: SessionRecord
    }

    /// How the request proved its session; cookie-authenticated writes must also pass the Origin check, and an access
    /// token stands for its session only where the route allows it (`Route.Flags.allowsAccessToken`).
    enum Credential {
        case bearer, cookie, accessToken
    }

    /// The session a request carries, resolved.
    struct SignedIn {
        let session: SessionRecord
        let token: String
        let credential: Credential
    }

    /// A new session for `userID` and its record, not yet stored: the ceremony or transaction that signs the person in
    /// stores it together with its own writes (`CeremonyStore`, `StoreTransaction.insertSession`).
    ///
    /// `method` and the passkey (`credentialID`) or Apple identity (`appleSubject`) say how the person signed in; the
    /// request's `User-Agent` is kept, cut to `SessionRecord.maximumUserAgentBytes`. The token and the ID are one draw
    /// (`randomLength` bytes) from `reserve`, or from the service's source: each draw costs a system call (OpenSSL 3's
    /// fork check, `getpid`). The ID is laid out as a version-7 UUID (`UUIDVersion7`): its time first, so that a new
    /// session's entry is appended to the ID's unique index instead of dirtying a random page of it (a WAL frame each
    /// with SQLite), then 74 random bits, which nobody guesses. The time in it tells little: the ID names a session to
    /// its own account, whose session list shows its `createdAt`, and as `sid` to its tokens' holders, beside `iat`.
    /// The token stays all random.
    func prepare(
        for userID: [UInt8],
        method: SessionMethod,
        credentialID: [UInt8]? = nil,
        appleSubject: String? = nil,
        federatedIdentity: (issuer: String, subject: String)? = nil,
        userVerified: Bool,
        request: HTTPRequest,
        reserve: RandomReserve? = nil
    ) -> (issued: Issued, record: SessionRecord) {
        let now = time.now
        let drawn = (reserve ?? random).bytes(count: Self.randomLength)
        let token = Base64URL.encode(Array(drawn[..<Self.tokenLength]))
        let expiresAt = now.addingTimeInterval(lifetime)
        let record = SessionRecord(
            tokenHash: Self.hash(token),
            id: UUIDVersion7.bytes(random: Array(drawn[Self.tokenLength...]), at: now),
            userID: userID,
            method: method,
            credentialID: credentialID,
            appleSubject: appleSubject,
            federatedIssuer: federatedIdentity?.issuer,
            federatedSubject: federatedIdentity?.subject,
            userVerified: userVerified,
            createdAt: now,
            expiresAt: expiresAt,
            userAgent: SessionRecord.boundedUserAgent(request.headers["user-agent"])
        )
        return (Issued(token: token, expiresAt: expiresAt, session: record), record)
    }

    /// A new session for `userID` that continues `session`: the same way in (method, passkey, Apple or OpenID provider
    /// identity, user verification, auth_time), a new token and ID, and no parent: a merge's survivor is a session of
    /// its own, signed in by the merge's proof of the account (a hand-off session's parent goes with the merged one).
    func prepare(continuing session: SessionRecord, for userID: [UInt8], request: HTTPRequest) -> (issued: Issued, record: SessionRecord) {
        var prepared = prepare(
            for: userID,
            method: session.method,
            credentialID: session.credentialID,
            appleSubject: session.appleSubject,
            federatedIdentity: session.federatedIssuer.flatMap { issuer in session.federatedSubject.map { (issuer, $0) } },
            userVerified: session.userVerified,
            request: request
        )
        prepared.record.authenticatedAt = session.authenticatedAt
        return (Issued(token: prepared.issued.token, expiresAt: prepared.issued.expiresAt, session: prepared.record), prepared.record)
    }

    /// A session handed to a web view (`GET /session/handoff`): it continues `parent` as its child (`parentID`), ends
    /// with it and expires no later than it.
    func prepare(handingOff parent: SessionRecord, request: HTTPRequest) -> (issued: Issued, record: SessionRecord) {
        var prepared = prepare(continuing: parent, for: parent.userID, request: request)
        prepared.record.parentID = parent.id
        prepared.record.expiresAt = min(prepared.record.expiresAt, parent.expiresAt)
        return (Issued(token: prepared.issued.token, expiresAt: prepared.record.expiresAt, session: prepared.record), prepared.record)
    }

    /// The one place a request's credentials are resolved, before any handler runs (`RelyingPartyServer.respond`): nil
    /// for a request without any, its session when it is valid, and `401 not_signed_in` for a session token (bearer or
    /// cookie) that is invalid, expired or revoked (a dead cookie is cleared), so that stale credentials never fall
    /// back to being signed out. Records the session's use (`lastUsedAt`) at most every `useRecordingInterval`, best
    /// effort: a failed write of the time fails no request.
    ///
    /// A bearer may also be the second kind, an access token (a JWT): it stands for its session when it verifies and
    /// that session still exists for its user, and is `401 not_signed_in` otherwise, as a stale session token is. Where
    /// the route does not allow one (`allowsAccessToken` false: account management, minting), a live access token is
    /// `403 insufficient_scope`.
    func resolve(_ request: HTTPRequest, allowsAccessToken: Bool) throws(ServerError) -> SignedIn? {
        guard let (token, credential) = Self.token(in: request) else { return nil }
        if credential == .bearer, AccessTokenVerifier.looksLikeJWT(token) {
            guard let (session, _) = try accessTokens.session(of: token) else { throw ServerError(.notSignedIn) }
            guard allowsAccessToken else {
                var error = ServerError(.insufficientScope)
                // RFC 6750 §3.1: the request needs a session token, which an access token is not.
                error.headers = [("WWW-Authenticate", "Bearer error=\"\(ServerError.Code.insufficientScope)\"")]
                throw error
            }
            return SignedIn(session: session, token: token, credential: .accessToken)
        }
        let now = time.now
        let found: SessionRecord?
        do {
            found = try store.session(tokenHash: Self.hash(token), now: now)
        } catch {
            throw .storage(error)
        }
        guard let session = found else {
            var error = ServerError(.notSignedIn)
            if credential == .cookie { error.headers = [("Set-Cookie", Self.clearingCookie)] }
            throw error
        }
        if now.timeIntervalSince(session.lastUsedAt ?? session.createdAt) >= Self.useRecordingInterval {
            try? store.recordSessionUse(tokenHash: session.tokenHash, at: now)
        }
        return SignedIn(session: session, token: token, credential: credential)
    }

    /// The session of the request's session cookie alone, or nil when it carries none or one that is no longer valid
    /// (never an error, and a bearer is not looked at): how the OpenID provider's authorization endpoint, which a
    /// browser reaches from another site, finds the person signed in to passkeyd. A restricted session (a recovery
    /// code's, a password's under `upgradeOnly`) signs nobody in there.
    func cookieSession(_ request: HTTPRequest) throws(ServerError) -> SessionRecord? {
        guard let token = Self.cookieToken(in: request), !token.isEmpty else { return nil }
        do {
            guard let session = try store.session(tokenHash: Self.hash(token), now: time.now), !session.method.isRestricted else { return nil }
            return session
        } catch {
            throw .storage(error)
        }
    }

    /// How often a session's `lastUsedAt` is written while it is in use.
    static let useRecordingInterval: TimeInterval = 300

    func cookie(for issued: Issued) -> String {
        "\(Self.cookieName)=\(issued.token); Path=/; Max-Age=\(Int(lifetime)); HttpOnly; Secure; SameSite=Strict"
    }

    static let clearingCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"

    static func hash(_ token: String) -> [UInt8] { DigestAlgorithm.sha256.hash(Array(token.utf8)) }

    /// The bearer token of a request, if it carries one (introspection's backend key).
    static func bearer(in request: HTTPRequest) -> String? {
        guard let (token, credential) = token(in: request), credential == .bearer else { return nil }
        return token
    }

    /// Whether `request` carries a session credential to resolve: a bearer or a session cookie.
    static func carriesCredentials(_ request: HTTPRequest) -> Bool {
        token(in: request) != nil
    }

    /// The session token a request carries: a bearer, else the session cookie. An empty one, or more than one
    /// session cookie, counts as a credential that does not resolve (`401 not_signed_in`), never as none. Another
    /// `Authorization` scheme (a proxy's Basic) is not a credential here.
    private static func token(in request: HTTPRequest) -> (String, Credential)? {
        if let authorization = request.headers["authorization"],
            authorization.lowercased() == "bearer" || authorization.lowercased().hasPrefix("bearer ")
        {
            return (authorization.dropFirst(6).trimmingCharacters(in: .whitespaces), .bearer)
        }
        return cookieToken(in: request).map { ($0, .cookie) }
    }

    /// The value of the session cookie, if the request carries one; "" when it carries two (one was planted: a
    /// browser sends the most specific first, so "first wins" let a planted cookie choose the account), so that the
    /// request resolves to no session and is refused (the authorization endpoint takes "" as nobody signed in).
    private static func cookieToken(in request: HTTPRequest) -> String? {
        let found = request.headers.cookies(named: cookieName)
        guard let first = found.first else { return nil }
        return found.count == 1 ? first : ""
    }
}
