import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage

/// The signed-in person's account: `/me`, its passkeys (list, rename, delete) and deleting the account. Every change
/// is one call of `AccountService`.
struct AccountController: Sendable {
    let store: any PasskeyStore
    let accounts: SignedInAccounts
    let service: AccountService
    /// The RP ID `/me` names.
    let relyingPartyID: String

    /// `GET /me`: the user, the RP ID, the passkeys, every way to sign in and the pending address.
    func me(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: false)
        let now = service.time.now
        let (passkeys, identities, federated, pending) = try storage {
            try store.transaction { transaction throws(StorageError) in
                (
                    try transaction.credentials(userID: user.id), try transaction.appleIdentities(userID: user.id),
                    try transaction.federatedIdentities(userID: user.id),
                    try AccountService.pendingAddress(userID: user.id, in: transaction, now: now)
                )
            }
        }
        return JSONBody.ok(
            AccountJSON(
                user: UserJSON(user),
                rpId: relyingPartyID,
                passkeys: passkeys.map(PasskeyJSON.init),
                signInMethods: .init(
                    passkeys: passkeys.count,
                    apple: identities.map(AccountJSON.AppleIdentityJSON.init),
                    identities: federated.map(FederatedIdentityJSON.init)
                ),
                pendingEmail: pending
            )
        )
    }

    /// `GET /me/passkeys`.
    func listPasskeys(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: false)
        return JSONBody.ok(try storage { try store.credentials(userID: user.id) }.map(PasskeyJSON.init))
    }

    struct RenameRequest: Decodable {
        let name: String
    }

    /// `PATCH /me/passkeys/{id}` `{"name"}`.
    func renamePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        let body = try JSONBody.decode(RenameRequest.self, from: request)
        let name = try RelyingPartyServer.validName(body.name, member: "name")
        guard let credentialID = Base64URL.decode(context.identifier), try service.renamePasskey(credentialID, userID: user.id, name: name) else {
            throw ServerError(.passkeyNotFound)
        }
        return JSONBody.ok(["renamed": true])
    }

    /// `DELETE /me/passkeys/{id}`: refuses to remove the account's only way to sign in (a linked Apple ID is one); the
    /// other sessions the passkey signed in end with it.
    func deletePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try accounts.user(request, context, writing: true)
        guard let credentialID = Base64URL.decode(context.identifier) else {
            throw ServerError(.passkeyNotFound)
        }
        switch try service.deletePasskey(credentialID, userID: user.id, keeping: signedIn.session.id, allowingLast: false) {
        case .deleted: return JSONBody.ok(["deleted": true])
        case .passkeyNotFound, .accountNotFound: throw ServerError(.passkeyNotFound)
        case .lastWayIn: throw ServerError(.lastCredential)
        }
    }

    /// The answer of a deletion: `appleRevocation` says whether Apple's refresh token will be revoked (`queued`) or
    /// none was held (`none`: the app never sent an `authorizationCode`); absent without Sign in with Apple.
    struct DeletedAnswer: Encodable {
        var deleted = true
        let appleRevocation: String?
    }

    /// `DELETE /me`: deletes every row of the account.
    func deleteAccount(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        let deletion = try service.delete(userID: user.id, reason: .self)
        var response = JSONBody.ok(DeletedAnswer(appleRevocation: deletion?.appleRevocation?.rawValue))
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }
}
