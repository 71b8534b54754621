import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
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

    /// `DELETE /me/sessions/{id}`: ends one of the account's sessions by its public ID (the request's own too), and the
    /// sessions handed off from it.
    func revoke(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        guard let sessionID = Base64URL.decode(context.identifier), sessionID.count == SessionRecord.idLength else {
            throw ServerError(.sessionNotFound)
        }
        let ended = try end { transaction throws(StorageError) in try transaction.deleteSession(id: sessionID, userID: user.id) }
        guard !ended.isEmpty else { throw ServerError(.sessionNotFound) }
        var response = JSONBody.ok(["revoked": true])
        if ended.contains(where: { $0.id == signedIn.session.id }) { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
        return response
    }

    /// `POST /me/sessions/revoke-others`: ends every session of the account but the request's own; a hand-off session's
    /// own ends too, with the session that made it.
    func revokeOthers(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        let ended = try end { transaction throws(StorageError) in try transaction.deleteSessions(userID: user.id, except: signedIn.session.id) }
        var response = JSONBody.ok(["revoked": ended.count])
        if ended.contains(where: { $0.id == signedIn.session.id }) { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
        return response
    }

    /// `POST /logout`: ends this session, and the sessions handed off from it.
    func logout(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (_, signedIn) = try accounts.user(request, context, writing: true)
        _ = try end(reason: .logout) { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: signedIn.session.tokenHash) }
        var response = JSONBody.ok(["signedOut": true])
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }

    /// Deletes sessions in a transaction (`deleting`: a store deletion, which takes the sessions handed off from them
    /// along) with a `session.revoked` for each live one (`reason`, `parent_ended` for those taken along).
    /// - Returns: the deleted sessions.
    private func end(
        reason: AccountEvent.RevocationReason = .user,
        deleting: (any StoreTransaction) throws(StorageError) -> [SessionRecord]
    ) throws(ServerError) -> [SessionRecord] {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> [SessionRecord] in
                let ended = try deleting(transaction)
                let revocations = AccountEvent.revocations(of: ended.filter { now < $0.expiresAt }, reason: reason)
                try transaction.appendEvents(revocations.map { $0.event(at: now, random: sessions.random) })
                return ended
            }
        }
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
    /// account. The session token never appears in it: the link carries a random code, stored only as a hash. A
    /// hand-off session makes none (`403 handoff_from_handoff`): a session handed off ends with its parent, one level.
    func startHandoff(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        guard caller.session.parentID == nil else { throw ServerError(.handoffFromHandoff) }
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
    /// is still valid), as its child (`parentID`: it ends with it, and expires no later), sets its cookie and
    /// redirects (303) to `handoffRedirect`.
    func signInHandoff(userID: [UInt8], context: HandoffContext, request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let now = time.now
        let issued = try storage {
            try store.transaction { transaction throws(StorageError) -> SessionService.Issued? in
                guard
                    let original = try transaction.sessions(userID: userID, now: now).first(where: { Base64URL.encode($0.id) == context.sessionId }),
                    original.parentID == nil
                else { return nil }
                let session = sessions.prepare(handingOff: original, request: request)
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
