import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    struct AuthenticationOptionsRequest: Decodable {
        var username: String?
        var userVerification: String?
    }

    /// What the server keeps with an authentication challenge issued for a username that names no account.
    struct AuthenticationContext: Codable {
        /// No credential may answer this challenge: it was issued for a username that names no account.
        var unknownUser: Bool
    }

    /// Longer than any user handle (at most 64 bytes), so no credential belongs to it.
    static let nobodysUserHandle = [UInt8](repeating: 0, count: 65)

    /// `POST /webauthn/authentication/options`: discoverable (autofill) sign-in without a username; with one, the
    /// user's credentials. An unknown username gets the same shape with stable decoy credentials (no enumeration).
    func authenticationOptions(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(AuthenticationOptionsRequest.self, from: request)
        let userVerification = try UserVerificationRequirement(body.userVerification ?? "preferred")
        var allowCredentials: [PublicKeyCredentialDescriptorJSON] = []
        var userID: [UInt8]?
        var context: [UInt8] = []
        if let name = body.username?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            try limit(accountLimiter, key: "name:" + name.lowercased())
            if let user = try storage({ try store.user(name: name) }) {
                userID = user.id
                allowCredentials = try storage { try store.credentials(userID: user.id) }
                    .map { PublicKeyCredentialDescriptorJSON(id: $0.id, transports: $0.transports) }
            } else {
                allowCredentials = decoyCredentials(for: name)
                // Bound to nobody, so that signing in with one's own passkey does not reveal that the name is free.
                context = JSONBody.encode(AuthenticationContext(unknownUser: true))
            }
        }
        try limit(challengeLimiter, key: clientAddress(request))
        let challenge = try challenges.issue(.authentication, userID: userID, userVerification: userVerification.rawValue, context: context)
        return JSONBody.ok(
            relyingParty.requestOptions(
                challenge: challenge,
                allowCredentials: allowCredentials,
                userVerification: userVerification,
                timeoutMilliseconds: configuration.challengeLifetimeSeconds * 1000
            )
        )
    }

    /// A verified assertion: the passkey as stored, what the ceremony found, and its owner.
    struct VerifiedAssertion {
        let stored: CredentialRecord
        let result: AuthenticationResult
        let user: UserRecord

        /// The counter and flags to store for it at `now`.
        func update(at now: Date) -> AuthenticationUpdate {
            AuthenticationUpdate(
                credentialID: stored.id,
                signCount: result.signCount,
                backupEligible: result.backupEligible,
                backupState: result.backupState,
                usedAt: now,
                backupEligibilityChanged: result.backupEligibilityChanged
            )
        }
    }

    /// Takes the assertion's challenge and runs §7.2 on it against the stored passkey: what a sign-in and a merge proof
    /// share. A counter that did not increase flags the passkey before the refusal.
    func verifyAssertion(_ credential: AuthenticationResponseJSON) throws(ServerError) -> VerifiedAssertion {
        let record = try challenges.consume(try Self.challengeText(credential.response.clientDataJSON), for: .authentication)
        guard let rawID = Base64URL.decode(credential.rawId),
            let stored = try storage({ try store.credential(id: rawID) })
        else {
            throw ServerError(.credentialUnknown)
        }
        try limit(accountLimiter, key: "user:" + Base64URL.encode(stored.userID))
        let key: COSEKey
        do {
            key = try keys.key(for: stored.id, encoded: stored.publicKey)
        } catch {
            throw ServerError(.internalError, detail: "a stored public key is unreadable: \(error)")
        }
        let expectations = AuthenticationExpectations(
            challenge: record.challenge,
            credential: StoredCredential(
                id: stored.id,
                publicKey: key,
                signCount: stored.signCount,
                userHandle: stored.userHandle,
                backupEligible: stored.backupEligible
            ),
            userVerification: try UserVerificationRequirement(record.userVerification),
            identifiedUserHandle: try Self.identifiedUserHandle(record, credential: stored)
        )
        let result: AuthenticationResult
        do {
            result = try AuthenticationCeremony(relyingParty: relyingParty).verify(credential, expecting: expectations)
        } catch {
            log("authentication refused: \(error)")
            if error.code == .signCountNotIncreased {
                try markPossibleClone(stored)
            }
            throw .verification(error)
        }
        guard let user = try storage({ try store.user(id: stored.userID) }) else {
            throw ServerError(.credentialUnknown)
        }
        return VerifiedAssertion(stored: stored, result: result, user: user)
    }

    /// `POST /webauthn/authentication/verify`: verifies the assertion, updates the counter and flags, starts a session.
    func authenticationVerify(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let credential = try JSONBody.decode(AuthenticationResponseJSON.self, from: request)
        let assertion = try verifyAssertion(credential)
        let (stored, result, user) = (assertion.stored, assertion.result, assertion.user)
        // The counter, flags, session and events in one transaction: one durable commit, which also makes the
        // challenge taken above durable (see `CeremonyStore`).
        let now = time.now
        let session = sessions.prepare(for: user.id, method: .passkey, credentialID: stored.id, userVerified: result.userVerified, request: request)
        var events = [AccountEvent.sessionCreated(session.record)]
        if result.backupEligibilityChanged {
            events.append(.passkeyBackupEligibilityChanged(userID: user.id, credentialID: stored.id, backupEligible: result.backupEligible))
        }
        do {
            try store.completeAuthentication(assertion.update(at: now), session: session.record, events: events.map { $0.event(at: now) })
        } catch  where error.code == .signCountNotIncreased {
            // §7.2 step 23 failed at the write: a concurrent sign-in with this passkey, here or on another node,
            // stored a counter at least as high after this one was read. The same verdict as at verification.
            log("authentication refused: \(error.code)")
            try markPossibleClone(stored)
            throw .possibleClone(step: error.code)
        } catch {
            throw .storage(error)
        }
        return try signedIn(user: user, credentialID: stored.id, issued: session.issued)
    }

    /// A counter that did not increase may mean a cloned authenticator: the sign-in is refused, and the passkey is
    /// flagged for its owner (with its `passkey.clone_warning` event). The stored counter is kept (a store never
    /// lowers it).
    func markPossibleClone(_ stored: CredentialRecord) throws(ServerError) {
        let event = AccountEvent.passkeyCloneWarning(userID: stored.userID, credentialID: stored.id).event(at: time.now)
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.recordAuthentication(
                    AuthenticationUpdate(
                        credentialID: stored.id,
                        signCount: stored.signCount,
                        backupEligible: stored.backupEligible,
                        backupState: stored.backupState,
                        usedAt: stored.lastUsedAt ?? stored.createdAt,
                        cloneWarning: true,
                        backupEligibilityChanged: false
                    )
                )
                try transaction.appendEvent(event)
            }
        }
    }

    /// The user handle of the user the ceremony identified before it started, as the credential's authenticator knows
    /// it: the handle the credential holds when the challenge's user owns it (a credential merged in from another
    /// account keeps its old handle), else the challenge's user (who then owns no such credential); nobody's handle
    /// when the username named no account; nil for discoverable sign-in.
    static func identifiedUserHandle(_ record: ChallengeRecord, credential: CredentialRecord) throws(ServerError) -> [UInt8]? {
        if let userID = record.userID { return userID == credential.userID ? credential.userHandle : userID }
        guard !record.context.isEmpty else { return nil }
        guard let context = try? JSONDecoder().decode(AuthenticationContext.self, from: Data(record.context)) else {
            throw ServerError(.internalError, detail: "the stored authentication state is unreadable")
        }
        return context.unknownUser ? nobodysUserHandle : nil
    }

    /// One or two credential descriptors derived from the username and a server secret: the same every time for
    /// the same name, indistinguishable from real ones to a client.
    func decoyCredentials(for username: String) -> [PublicKeyCredentialDescriptorJSON] {
        let seed = DigestAlgorithm.sha256.hash(enumerationSecret + Array("decoy:\(username)".utf8))
        let count = 1 + Int(seed[0] % 2)
        return (0..<count).map { index in
            let identifier = DigestAlgorithm.sha256.hash(seed + [UInt8(index)])
            return PublicKeyCredentialDescriptorJSON(id: identifier, transports: ["internal", "hybrid"])
        }
    }
}
