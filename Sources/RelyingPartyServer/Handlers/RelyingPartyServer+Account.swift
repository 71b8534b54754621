import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    public struct PasskeyJSON: Encodable, Sendable {
        public let id: String
        public let name: String
        public let createdAt: Date
        public let lastUsedAt: Date?
        public let algorithm: Int
        public let transports: [String]
        public let aaguid: String
        public let attestationFormat: String
        /// The authenticator's name from the FIDO metadata or the name list, recorded at registration.
        public let authenticatorName: String?
        public let backupEligible: Bool
        public let backupState: Bool
        public let cloneWarning: Bool
        public let backupEligibilityChanged: Bool

        init(_ record: CredentialRecord) {
            id = Base64URL.encode(record.id)
            name = record.name
            createdAt = record.createdAt
            lastUsedAt = record.lastUsedAt
            algorithm = record.algorithm
            transports = RelyingPartyServer.knownTransports(record.transports)
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

    public struct AccountJSON: Encodable {
        struct SignInMethods: Encodable {
            let passkeys: Int
            let apple: [AppleIdentityJSON]
        }

        public struct AppleIdentityJSON: Encodable, Sendable {
            public let appleUserID: String
            public let email: String?
            public let isPrivateEmail: Bool
            public let emailDisabled: Bool
            public let consentRevoked: Bool
            public let linkedAt: Date

            init(_ identity: AppleIdentityRecord) {
                appleUserID = identity.subject
                email = identity.email
                isPrivateEmail = identity.isPrivateEmail
                emailDisabled = identity.emailDisabled
                consentRevoked = identity.consentRevoked
                linkedAt = identity.createdAt
            }
        }

        let user: UserJSON
        let rpId: String
        let passkeys: [PasskeyJSON]
        let signInMethods: SignInMethods
    }

    /// `GET /me`: the user, the RP ID, the passkeys and every way to sign in.
    func me(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, context, writing: false)
        let (passkeys, identities) = try storage {
            try store.transaction { transaction throws(StorageError) in
                (try transaction.credentials(userID: user.id), try transaction.appleIdentities(userID: user.id))
            }
        }
        return JSONBody.ok(
            AccountJSON(
                user: UserJSON(user),
                rpId: relyingParty.id,
                passkeys: passkeys.map(PasskeyJSON.init),
                signInMethods: .init(passkeys: passkeys.count, apple: identities.map(AccountJSON.AppleIdentityJSON.init))
            )
        )
    }

    /// `GET /me/passkeys`.
    func listPasskeys(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, context, writing: false)
        return JSONBody.ok(try storage { try store.credentials(userID: user.id) }.map(PasskeyJSON.init))
    }

    struct RenameRequest: Decodable {
        let name: String
    }

    /// `PATCH /me/passkeys/{id}` `{"name"}`.
    func renamePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, context, writing: true)
        let body = try JSONBody.decode(RenameRequest.self, from: request)
        let name = try Self.validName(body.name, member: "name")
        let now = time.now
        guard let credentialID = Base64URL.decode(context.identifier),
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

    /// `DELETE /me/passkeys/{id}`: refuses to remove the account's only way to sign in (a linked Apple ID is one); the
    /// other sessions the passkey signed in end with it.
    func deletePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, signedIn) = try signedInUser(request, context, writing: true)
        guard let credentialID = Base64URL.decode(context.identifier) else {
            throw ServerError(.passkeyNotFound)
        }
        let now = time.now
        let deletion = try storage {
            try store.transaction { transaction throws(StorageError) in
                let deletion = try transaction.deleteCredentialUnlessLast(id: credentialID, userID: user.id)
                if deletion == .deleted {
                    try transaction.appendEvent(AccountEvent.passkeyDeleted(userID: user.id, credentialID: credentialID).event(at: now))
                    try endSessions(ofPasskey: credentialID, userID: user.id, keeping: signedIn.session.id, in: transaction, now: now)
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

    /// Ends the account's sessions that the passkey signed in, but `keptID`, each with its `session.revoked`.
    func endSessions(
        ofPasskey credentialID: [UInt8],
        userID: [UInt8],
        keeping keptID: [UInt8]?,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) {
        for session in try transaction.sessions(userID: userID, now: now) where session.credentialID == credentialID && session.id != keptID {
            guard let ended = try transaction.deleteSession(id: session.id, userID: userID) else { continue }
            try transaction.appendEvent(AccountEvent.sessionRevoked(ended, reason: .passkeyDeleted).event(at: now))
        }
    }

    /// `DELETE /me`: deletes every row of the account.
    func deleteAccount(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, context, writing: true)
        try deleteAccount(userID: user.id, reason: .self)
        var response = JSONBody.ok(["deleted": true])
        response.headers.add("Set-Cookie", SessionService.clearingCookie)
        return response
    }
}
