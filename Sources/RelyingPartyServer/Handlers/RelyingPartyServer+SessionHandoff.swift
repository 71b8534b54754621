import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// How long a hand-off link is valid.
    static let handoffLifetime: TimeInterval = 60
    static let handoffPath = "/session/handoff"

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
        let (user, caller) = try signedInUser(request, context, writing: true)
        let issued = try challenges.issueCode(
            .sessionHandoff,
            userID: user.id,
            context: JSONBody.encode(HandoffContext(sessionId: Base64URL.encode(caller.session.id))),
            lifetime: Self.handoffLifetime
        )
        return JSONBody.ok(HandoffResponse(url: "\(configuration.handoffOrigin)\(Self.handoffPath)?code=\(issued.code)", expiresAt: issued.expiresAt))
    }

    /// `GET /session/handoff?code=…`: takes the code, starts a session that continues the one that asked for the link
    /// (while that one is still valid), sets its cookie and redirects (303) to `sessions.handoffRedirect`.
    func completeHandoff(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let code = Self.queryValue("code", in: request.query) ?? ""
        guard let record = try challenges.redeemCode(code, kind: .sessionHandoff), let userID = record.userID,
            let context = try? JSONDecoder().decode(HandoffContext.self, from: Data(record.context))
        else { throw ServerError(.handoffCodeInvalid) }
        let now = time.now
        let issued = try storage {
            try store.transaction { transaction throws(StorageError) -> SessionService.Issued? in
                guard let original = try transaction.sessions(userID: userID, now: now).first(where: { Base64URL.encode($0.id) == context.sessionId })
                else { return nil }
                let session = sessions.prepare(continuing: original, for: userID, request: request)
                try transaction.insertSession(session.record)
                try transaction.appendEvent(AccountEvent.sessionCreated(session.record).event(at: now))
                return session.issued
            }
        }
        guard let issued else { throw ServerError(.handoffCodeInvalid) }
        var response = HTTPResponse(status: 303)
        response.headers.add("Location", configuration.handoffRedirect)
        response.headers.add("Set-Cookie", sessions.cookie(for: issued))
        response.headers.add("Referrer-Policy", "no-referrer")
        return response
    }

    /// The percent-decoded value of `name` in a query string.
    static func queryValue(_ name: String, in query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return String(parts[1]).removingPercentEncoding }
        }
        return nil
    }
}
