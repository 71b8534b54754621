import CryptoCore
import Foundation
import HTTPServer
import Storage

/// A person's sessions: the list, ending one, the others or this one (`/logout`), and the hand-off link that signs a
/// web view in to the app's account.
struct SessionsController: Sendable {
    /// How long a hand-off link is valid.
    static let handoffLifetime: TimeInterval = 60
    static let handoffPath = "/session/handoff"

    let store: any PasskeyStore
    let time: any TimeSource
    let sessions: SessionService
    let challenges: ChallengeService
    let accounts: SignedInAccounts
    /// Where hand-off links point (`configuration.handoffOrigin`), and where a completed one redirects.
    let handoffOrigin: String
    let handoffRedirect: String

    /// `GET /me/sessions`: the account's live sessions, oldest first, the request's own marked `current`.
    func list(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: false)
        let now = time.now
        let live = try storage { try store.transaction { transaction throws(StorageError) in try transaction.sessions(userID: user.id, now: now) } }
        return JSONBody.ok(["sessions": live.map { SessionJSON($0, current: $0.id == signedIn.session.id) }])
    }

    /// `DELETE /me/sessions/{id}`: ends one of the account's sessions by its public ID (the request's own too).
    func revoke(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        guard let sessionID = Base64URL.decode(context.identifier), sessionID.count == SessionRecord.idLength else {
            throw ServerError(.sessionNotFound)
        }
        let now = time.now
        let ended = try storage {
            try store.transaction { transaction throws(StorageError) -> Bool in
                guard let ended = try transaction.deleteSession(id: sessionID, userID: user.id) else { return false }
                try transaction.appendEvent(AccountEvent.sessionRevoked(ended, reason: .user).event(at: now, random: sessions.random))
                return true
            }
        }
        guard ended else { throw ServerError(.sessionNotFound) }
        var response = JSONBody.ok(["revoked": true])
        if sessionID == signedIn.session.id { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
        return response
    }

    /// `POST /me/sessions/revoke-others`: ends every session of the account but the request's own.
    func revokeOthers(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        let now = time.now
        let ended = try storage {
            try store.transaction { transaction throws(StorageError) -> Int in
                let ended = try transaction.deleteSessions(userID: user.id, except: signedIn.session.id)
                for session in ended where now < session.expiresAt {
                    try transaction.appendEvent(AccountEvent.sessionRevoked(session, reason: .user).event(at: now, random: sessions.random))
                }
                return ended.count
            }
        }
        return JSONBody.ok(["revoked": ended])
    }

    /// `POST /logout`: ends this session.
    func logout(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (_, signedIn) = try accounts.user(request, context, writing: true)
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                guard let ended = try transaction.deleteSession(tokenHash: signedIn.session.tokenHash) else { return }
                try transaction.appendEvent(AccountEvent.sessionRevoked(ended, reason: .logout).event(at: now, random: sessions.random))
            }
        }
        var response = JSONBody.ok(["signedOut": true])
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }

    struct HandoffResponse: Encodable {
        let url: String
        let expiresAt: Date
    }

    /// What a hand-off code stands for (its challenge's `userID` is the account).
    struct HandoffContext: Codable {
        var sessionId: String
    }

    /// `POST /session/handoff`: a single-use link, valid for a minute, that signs a web view in to the signed-in
    /// account. The session token never appears in it: the link carries a random code, stored only as a hash.
    func startHandoff(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        let issued = try challenges.issueCode(
            .sessionHandoff,
            userID: user.id,
            context: JSONBody.encode(HandoffContext(sessionId: Base64URL.encode(caller.session.id))),
            lifetime: Self.handoffLifetime
        )
        return JSONBody.ok(HandoffResponse(url: "\(handoffOrigin)\(Self.handoffPath)?code=\(issued.code)", expiresAt: issued.expiresAt))
    }

    /// `GET /session/handoff?code=…`: takes the code, starts a session that continues the one that asked for the link
    /// (while that one is still valid), sets its cookie and redirects (303) to `sessions.handoffRedirect`. A browser
    /// that holds a session of another account is asked first, never switched (`handoffChoicePage`); one that came
    /// from another site, whose `SameSite=Strict` cookie was not sent, makes one same-origin round trip first.
    func completeHandoff(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let code = request.queryValue("code") ?? ""
        if Self.cameFromAnotherSite(request), Base64URL.isAlphabet(code), code.utf8.count <= 128 { return Self.sameOriginBounce(code: code) }
        guard let record = try challenges.redeemCode(code, kind: .sessionHandoff), let userID = record.userID,
            let context = try? JSONDecoder().decode(HandoffContext.self, from: Data(record.context))
        else { throw ServerError(.handoffCodeInvalid) }
        if let current = try sessions.cookieSession(request), current.userID != userID {
            // Another account is signed in in this browser: asked, not switched (a link someone else made must not
            // replace a live session). The link's code is spent; the page's "Switch" carries a new one.
            let issued = try challenges.issueCode(.sessionHandoff, userID: userID, context: record.context, lifetime: Self.handoffLifetime)
            let name = try storage { try store.user(id: current.userID) }?.name ?? ""
            return handoffChoicePage(signedInAs: name, code: issued.code)
        }
        return try signInHandoff(userID: userID, context: context, request: request)
    }

    /// Starts the session a hand-off code stands for: it continues the one that asked for the link (while that one
    /// is still valid), sets its cookie and redirects (303) to `handoffRedirect`.
    func signInHandoff(userID: [UInt8], context: HandoffContext, request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let now = time.now
        let issued = try storage {
            try store.transaction { transaction throws(StorageError) -> SessionService.Issued? in
                guard let original = try transaction.sessions(userID: userID, now: now).first(where: { Base64URL.encode($0.id) == context.sessionId })
                else { return nil }
                let session = sessions.prepare(continuing: original, for: userID, request: request)
                try transaction.insertSession(session.record)
                try transaction.appendEvent(AccountEvent.sessionCreated(session.record).event(at: now, random: sessions.random))
                return session.issued
            }
        }
        guard let issued else { throw ServerError(.handoffCodeInvalid) }
        var response = HTTPResponse(status: 303)
        response.headers.add("Location", handoffRedirect)
        response.headers.add("Set-Cookie", sessions.cookie(for: issued))
        response.headers.add("Referrer-Policy", "no-referrer")
        return response
    }
}
