import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage

/// A signed-in person's links to Sign in with Apple: unlinking an identity, and declining the suggestion to link with
/// the accounts that hold the same verified email.
struct AppleLinksController: Sendable {
    let store: any PasskeyStore
    let accounts: SignedInAccounts
    /// Unlinking (one account change: sessions, revocations, the identity and its events).
    let service: AccountService

    /// `DELETE /me/apple/{appleUserID}`: unlinks an Apple identity of the signed-in account
    /// (`AccountService.unlinkAppleIdentity`); `409 last_sign_in_method` when nothing else would let the person in.
    func unlink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        switch try service.unlinkAppleIdentity(context.identifier, from: user.id) {
        case .notFound:
            throw ServerError(.appleIdentityNotFound)
        case .lastSignInMethod:
            throw ServerError(.lastSignInMethod)
        case .unlinked(let ended):
            var response = JSONBody.ok(["unlinked": true])
            if ended.contains(caller.session.id) { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
            return response
        }
    }

    /// `POST /me/link-suggestion/decline`: the signed-in person does not want to link with the accounts that hold the
    /// same verified email; `POST /auth/apple` no longer suggests them.
    func declineLinkSuggestion(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        try storage {
            try store.transaction { transaction throws(StorageError) in
                guard let current = try transaction.user(id: user.id), current.emailVerified, let email = current.email else { return }
                for other in try transaction.users(verifiedEmail: email) where other.id != user.id {
                    try transaction.insertLinkDecline(LinkDecline(user.id, other.id))
                }
            }
        }
        return JSONBody.ok(["declined": true])
    }
}
