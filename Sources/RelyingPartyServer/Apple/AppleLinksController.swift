import CryptoCore
import Foundation
import HTTPServer
import Storage

/// A signed-in person's links to Sign in with Apple: unlinking an identity, and declining the suggestion to link with
/// the accounts that hold the same verified email.
struct AppleLinksController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let accounts: SignedInAccounts
    /// Sign in with Apple (its worker revokes an unlinked identity's refresh tokens); nil without an `apple` block.
    let apple: AppleIntegration?

    /// `DELETE /me/apple/{appleUserID}`: unlinks an Apple identity of the signed-in account, ending the sessions it made
    /// and queueing the revocation of its refresh tokens; `409 last_sign_in_method` when nothing else would let the
    /// person in.
    func unlink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        let subject = context.identifier
        let now = time.now
        enum Unlink {
            case unlinked(endedCurrentSession: Bool)
            case notFound, lastSignInMethod
        }
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> Unlink in
                let identities = try transaction.appleIdentities(userID: user.id)
                guard identities.contains(where: { $0.subject == subject }) else { return .notFound }
                let passkeys = try transaction.credentials(userID: user.id)
                guard identities.count > 1 || !passkeys.isEmpty else { return .lastSignInMethod }
                var events: [AccountEvent] = []
                let ended = try transaction.deleteSessions(appleSubject: subject)
                for session in ended {
                    events.append(.sessionRevoked(session, reason: .appleUnlinked))
                }
                _ = try AppleIntegration.queueRevocations(of: subject, in: transaction, now: now)
                _ = try transaction.deleteAppleIdentity(subject: subject)
                events.append(.appleUnlinked(userID: user.id, appleUserID: subject, reason: .user))
                try transaction.appendEvents(events.map { $0.event(at: now) })
                return .unlinked(endedCurrentSession: ended.contains { $0.id == caller.session.id })
            }
        }
        switch outcome {
        case .notFound:
            throw ServerError(.appleIdentityNotFound)
        case .lastSignInMethod:
            throw ServerError(.lastSignInMethod)
        case .unlinked(let endedCurrentSession):
            apple?.worker.wake()
            var response = JSONBody.ok(["unlinked": true])
            if endedCurrentSession { response.headers.add("Set-Cookie", SessionService.clearingCookie) }
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
