import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// `GET /me/sessions`: the account's live sessions, oldest first, the request's own marked `current`.
    func listSessions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try signedInUser(request, context, writing: false)
        let now = time.now
        let live = try storage { try store.transaction { transaction throws(StorageError) in try transaction.sessions(userID: user.id, now: now) } }
        return JSONBody.ok(["sessions": live.map { SessionJSON($0, current: $0.id == signedIn.session.id) }])
    }

    /// `DELETE /me/sessions/{id}`: ends one of the account's sessions by its public ID (the request's own too).
    func revokeSession(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try signedInUser(request, context, writing: true)
        guard let sessionID = Base64URL.decode(context.identifier), sessionID.count == SessionRecord.idLength else {
            throw ServerError(.sessionNotFound)
        }
        let now = time.now
        let ended = try storage {
            try store.transaction { transaction throws(StorageError) -> Bool in
                guard let ended = try transaction.deleteSession(id: sessionID, userID: user.id) else { return false }
                try transaction.appendEvent(AccountEvent.sessionRevoked(ended, reason: .user).event(at: now))
                return true
            }
        }
        guard ended else { throw ServerError(.sessionNotFound) }
        var response = JSONBody.ok(["revoked": true])
        if sessionID == signedIn.session.id { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
        return response
    }

    /// `POST /me/sessions/revoke-others`: ends every session of the account but the request's own.
    func revokeOtherSessions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try signedInUser(request, context, writing: true)
        let now = time.now
        let ended = try storage {
            try store.transaction { transaction throws(StorageError) -> Int in
                let ended = try transaction.deleteSessions(userID: user.id, except: signedIn.session.id)
                for session in ended where now < session.expiresAt {
                    try transaction.appendEvent(AccountEvent.sessionRevoked(session, reason: .user).event(at: now))
                }
                return ended.count
            }
        }
        return JSONBody.ok(["revoked": ended])
    }
}
