import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    struct PasskeyJSON: Encodable {
        let id: String
        let name: String
        let createdAt: Date
        let lastUsedAt: Date?
        let algorithm: Int
        let transports: [String]
        let aaguid: String
        let attestationFormat: String
        /// The authenticator's name from the FIDO metadata or the name list, recorded at registration.
        let authenticatorName: String?
        let backupEligible: Bool
        let backupState: Bool
        let cloneWarning: Bool
        let backupEligibilityChanged: Bool

        init(_ record: CredentialRecord) {
            id = Base64URL.encode(record.id)
            name = record.name
            createdAt = record.createdAt
            lastUsedAt = record.lastUsedAt
            algorithm = record.algorithm
            transports = record.transports
            aaguid = record.aaguid.count == 16 ? AttestedCredentialData.uuidString(record.aaguid) : ""
            attestationFormat = record.attestationFormat
            let summary = try? JSONDecoder().decode([String: String].self, from: Data(record.attestationSummary.utf8))
            authenticatorName = summary?["authenticatorName"]
            backupEligible = record.backupEligible
            backupState = record.backupState
            cloneWarning = record.cloneWarning
            backupEligibilityChanged = record.backupEligibilityChanged
        }
    }

    struct AccountJSON: Encodable {
        let user: SignedInResponse.User
        let rpId: String
        let passkeys: [PasskeyJSON]
    }

    /// The signed-in user, or 401. Cookie-authenticated writes also pass the Origin check.
    func signedInUser(_ request: HTTPRequest, writing: Bool) throws(ServerError) -> (user: UserRecord, token: String) {
        guard let current = try sessions.current(request) else {
            var error = ServerError(.notSignedIn)
            if request.headers["cookie"]?.contains(SessionService.cookieName) == true {
                error.headers = [("Set-Cookie", SessionService.clearingCookie)]
            }
            throw error
        }
        if writing { try requireSameOrigin(request, credential: current.credential) }
        guard let user = try storage({ try store.user(id: current.session.userID) }) else { throw ServerError(.notSignedIn) }
        return (user, current.token)
    }

    /// `GET /me`: the user, the RP ID and the passkeys.
    func me(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, writing: false)
        let passkeys = try storage { try store.credentials(userID: user.id) }
        return JSONBody.ok(
            AccountJSON(
                user: .init(id: Base64URL.encode(user.id), name: user.name, displayName: user.displayName),
                rpId: relyingParty.id,
                passkeys: passkeys.map(PasskeyJSON.init)
            )
        )
    }

    /// `GET /me/passkeys`.
    func listPasskeys(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, writing: false)
        return JSONBody.ok(try storage { try store.credentials(userID: user.id) }.map(PasskeyJSON.init))
    }

    struct RenameRequest: Decodable {
        let name: String
    }

    /// `PATCH /me/passkeys/{id}` `{"name"}`.
    func renamePasskey(_ request: HTTPRequest, identifier: String) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, writing: true)
        let body = try JSONBody.decode(RenameRequest.self, from: request)
        let name = try Self.validName(body.name, member: "name")
        let now = time.now
        guard let credentialID = Base64URL.decode(identifier),
            try storage({
                try store.transaction { transaction throws(StorageError) in
                    guard try transaction.renameCredential(id: credentialID, userID: user.id, name: name) else { return false }
                    try transaction.appendEvent(AccountEvent.passkeyRenamed(userID: user.id, credentialID: credentialID).event(at: now))
                    return true
                }
            })
        else { throw ServerError(.passkeyNotFound) }
        return JSONBody.ok(["renamed": true])
    }

    /// `DELETE /me/passkeys/{id}`: refuses to remove the account's only way to sign in.
    func deletePasskey(_ request: HTTPRequest, identifier: String) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, writing: true)
        guard let credentialID = Base64URL.decode(identifier) else {
            throw ServerError(.passkeyNotFound)
        }
        let now = time.now
        let deletion = try storage {
            try store.transaction { transaction throws(StorageError) in
                let deletion = try transaction.deleteCredentialUnlessLast(id: credentialID, userID: user.id)
                if deletion == .deleted {
                    try transaction.appendEvent(AccountEvent.passkeyDeleted(userID: user.id, credentialID: credentialID).event(at: now))
                }
                return deletion
            }
        }
        switch deletion {
        case .deleted:
            keys.remove(credentialID)
            return JSONBody.ok(["deleted": true])
        case .notFound:
            throw ServerError(.passkeyNotFound)
        case .lastCredential:
            throw ServerError(.lastCredential)
        }
    }

    /// `POST /logout`: ends this session.
    func logout(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let (_, token) = try signedInUser(request, writing: true)
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                guard let ended = try transaction.deleteSession(tokenHash: SessionService.hash(token)) else { return }
                try transaction.appendEvent(AccountEvent.sessionRevoked(ended, reason: .logout).event(at: now))
            }
        }
        var response = JSONBody.ok(["signedOut": true])
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }

    /// `DELETE /me`: deletes every row of the account.
    func deleteAccount(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, writing: true)
        try deleteAccount(userID: user.id, reason: .self)
        var response = JSONBody.ok(["deleted": true])
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }
}
