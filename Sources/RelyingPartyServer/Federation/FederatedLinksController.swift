import Accounts
import HTTPEdge
import HTTPServer
import Storage

/// A signed-in person's identities at OpenID providers: unlinking one.
struct FederatedLinksController: Sendable {
    let accounts: SignedInAccounts
    let service: AccountService

    /// `DELETE /me/identities/{provider}/{subject}`: unlinks an identity of the signed-in account
    /// (`AccountService.unlinkFederatedIdentity`) and ends the sessions it signed in (the request's own clears its
    /// cookie); `409 last_sign_in_method` when nothing else would let the person in.
    func unlink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        guard context.parameters.count == 2 else { throw ServerError(.identityNotFound) }
        let subject = context.parameters[1].removingPercentEncoding ?? context.parameters[1]
        switch try service.unlinkFederatedIdentity(provider: context.parameters[0], subject: subject, from: user.id) {
        case .notFound: throw ServerError(.identityNotFound)
        case .lastSignInMethod: throw ServerError(.lastSignInMethod)
        case .unlinked(let ended):
            var response = JSONBody.ok(["unlinked": true])
            if ended.contains(caller.session.id) { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
            return response
        }
    }
}
