import AccountEvents
import CryptoCore
import Email
import FederatedIdentity
import Foundation
import HTTPEdge
import Observability
import Storage

/// Every change of an account that spans several records, written once, each in one store transaction with the events
/// that describe it, and used by every entry point alike: the HTTP handlers (`/me`), the admin API and
/// `passkeyd admin` (through `AdminService`), and Sign in with Apple's notifications. Handlers translate HTTP to these
/// calls and their results to answers.
package struct AccountService: Sendable {
    package let store: any PasskeyStore
    package let time: any TimeSource
    package let random: any RandomSource
    /// The verified public keys of passkeys, dropped when a passkey goes (`forget(passkey:)`).
    package let keys: CredentialKeyCache
    /// The passkeys of the sign-ins this node wrote, dropped when a passkey goes or moves (`forget(passkey:)`).
    package let signInRecords: SignInRecordCache
    /// Sign in with Apple, whose revocation worker is woken when a deletion queued refresh tokens; nil without it.
    package let apple: AppleIntegration?
    /// `recovery.enrollmentLinkLifetimeSeconds`.
    package let enrollmentLinkLifetime: TimeInterval
    package let log: Logger
    /// The messages to queue with the changes (`email`); nil sends none.
    package let mail: MailComposer?

    package init(
        store: any PasskeyStore,
        time: any TimeSource,
        random: any RandomSource,
        keys: CredentialKeyCache,
        signInRecords: SignInRecordCache,
        apple: AppleIntegration?,
        enrollmentLinkLifetime: TimeInterval,
        log: Logger,
        mail: MailComposer?
    ) {
        self.store = store
        self.time = time
        self.random = random
        self.keys = keys
        self.signInRecords = signInRecords
        self.apple = apple
        self.enrollmentLinkLifetime = enrollmentLinkLifetime
        self.log = log
        self.mail = mail
    }

    // MARK: creating and changing

    /// A new account with no way in yet (an invitation, followed by an enrollment link): `user.created` with `method`.
    package func create(_ user: UserRecord, method: AccountEvent.CreationMethod) throws(ServerError) {
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.insertUser(user)
                try transaction.appendEvent(
                    AccountEvent.userCreated(userID: user.id, method: method, externalID: user.externalID).event(at: now, random: random)
                )
            }
        }
    }

    /// Applies `change` to the account and appends `user.updated` naming the members `change` says it changed; nothing
    /// (no event) when it changed none. A change of `disabled` (which `change` does not name) ends what it must
    /// (`recordDisabledChange`) with its own event. With `droppingPendingAddress`, the account's pending address
    /// verification goes in the same transaction (an address set otherwise replaces it).
    /// - Returns: the account as it is now, or nil when there is none.
    package func update(
        userID: [UInt8],
        droppingPendingAddress: Bool = false,
        _ change: (inout UserRecord) -> [String]
    ) throws(ServerError) -> UserRecord? {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> UserRecord? in
                guard var user = try transaction.user(id: userID) else { return nil }
                if droppingPendingAddress { try Self.dropPendingAddress(userID: userID, in: transaction) }
                let wasDisabled = user.disabled
                let changes = change(&user)
                guard !changes.isEmpty || user.disabled != wasDisabled else { return user }
                _ = try transaction.updateUser(user)
                if !changes.isEmpty {
                    try transaction.appendEvent(
                        AccountEvent.userUpdated(userID: userID, changes: changes, externalID: user.externalID).event(at: now, random: random)
                    )
                }
                if user.disabled != wasDisabled { try recordDisabledChange(of: user, in: transaction, at: now) }
                return user
            }
        }
    }

    // MARK: passkeys

    /// How deleting a passkey ended.
    package enum PasskeyDeletion {
        case deleted
        case accountNotFound
        case passkeyNotFound
        /// The passkey is the account's only way in (a linked Apple ID is one), and `allowingLast` was false.
        case lastWayIn
    }

    /// Deletes one passkey of the account (`passkey.deleted`) and ends the other sessions it signed in (but
    /// `keptSession`), each with `session.revoked`. With `allowingLast` false, the account's only way in stays.
    package func deletePasskey(
        _ credentialID: [UInt8],
        userID: [UInt8],
        keeping keptSession: [UInt8]?,
        allowingLast: Bool
    ) throws(ServerError) -> PasskeyDeletion {
        let now = time.now
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> PasskeyDeletion in
                if allowingLast {
                    guard try transaction.user(id: userID) != nil else { return .accountNotFound }
                    guard try transaction.deleteCredential(id: credentialID, userID: userID) else { return .passkeyNotFound }
                } else {
                    switch try transaction.deleteCredentialUnlessLast(id: credentialID, userID: userID) {
                    case .deleted: break
                    case .notFound: return .passkeyNotFound
                    case .lastCredential: return .lastWayIn
                    }
                }
                try transaction.appendEvent(AccountEvent.passkeyDeleted(userID: userID, credentialID: credentialID).event(at: now, random: random))
                try queueNotice(.passkeyRemoved, userID: userID, in: transaction, now: now)
                try endSessions(ofPasskey: credentialID, userID: userID, keeping: keptSession, in: transaction, now: now)
                return .deleted
            }
        }
        if outcome == .deleted { forget(passkey: credentialID) }
        return outcome
    }

    /// Renames one passkey of the account (`passkey.renamed`); whether the account has it.
    package func renamePasskey(_ credentialID: [UInt8], userID: [UInt8], name: String) throws(ServerError) -> Bool {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) in
                guard try transaction.renameCredential(id: credentialID, userID: userID, name: name) else { return false }
                try transaction.appendEvent(AccountEvent.passkeyRenamed(userID: userID, credentialID: credentialID).event(at: now, random: random))
                return true
            }
        }
    }

    /// Ends the account's sessions that the passkey signed in, but `keptID`, each with its `session.revoked` (and the
    /// sessions handed off from them, `parent_ended`).
    package func endSessions(
        ofPasskey credentialID: [UInt8],
        userID: [UInt8],
        keeping keptID: [UInt8]?,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) {
        let ending = try transaction.sessions(userID: userID, now: now).filter { $0.credentialID == credentialID && $0.id != keptID }
        let endingIDs = Set(ending.map(\.id))
        // A hand-off of one of them ends with it (`parent_ended`).
        for session in ending where session.parentID.map(endingIDs.contains) != true {
            let ended = try transaction.deleteSession(id: session.id, userID: userID)
            try transaction.appendEvents(AccountEvent.revocations(of: ended, reason: .passkeyDeleted).map { $0.event(at: now, random: random) })
        }
    }

    // MARK: sessions

    /// Ends every session of the account, each live one with `session.revoked` (`reason`).
    /// - Returns: how many live sessions ended, or nil when there is no such account.
    package func revokeSessions(userID: [UInt8], reason: AccountEvent.RevocationReason) throws(ServerError) -> Int? {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> Int? in
                guard try transaction.user(id: userID) != nil else { return nil }
                let ended = try transaction.deleteSessions(userID: userID, except: nil).filter { now < $0.expiresAt }
                try transaction.appendEvents(AccountEvent.revocations(of: ended, reason: reason).map { $0.event(at: now, random: random) })
                if reason == .admin { try queueNotice(.sessionsRevokedByAdministrator, userID: userID, in: transaction, now: now) }
                return ended.count
            }
        }
    }

    // MARK: recovery codes

    /// Replaces the account's recovery codes with `hashes` (the old set is gone): `recovery_codes.created`.
    package func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]]) throws(ServerError) {
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.replaceRecoveryCodes(userID: userID, hashes: hashes, createdAt: now)
                try transaction.appendEvent(AccountEvent.recoveryCodesCreated(userID: userID).event(at: now, random: random))
            }
        }
    }

    /// Uses one recovery code of the account (atomically: of two calls with the same code, on any nodes, one wins) and
    /// stores `session`: `recovery_code.used` (with the codes left) and `session.created`.
    /// - Returns: whether the code was the account's and unused; nothing is written when it was not.
    package func recover(userID: [UInt8], codeHash: [UInt8], session: SessionRecord) throws(ServerError) -> Bool {
        let now = time.now
        return try storage {
            try store.transaction { transaction throws(StorageError) -> Bool in
                guard try transaction.deleteRecoveryCode(userID: userID, hash: codeHash) else { return false }
                try transaction.insertSession(session)
                let remaining = try transaction.recoveryCodeCount(userID: userID)
                try transaction.appendEvent(AccountEvent.recoveryCodeUsed(userID: userID, remaining: remaining).event(at: now, random: random))
                try queueNotice(.recoveryCodeUsed, userID: userID, in: transaction, now: now)
                try transaction.appendEvent(AccountEvent.sessionCreated(session).event(at: now, random: random))
                return true
            }
        }
    }

    // MARK: enrollment links

    /// The SHA-256 of an enrollment link's token as the link carries it: all the store keeps.
    package static func enrollmentTokenHash(_ token: String) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array(token.utf8))
    }

    /// A single-use enrollment link's token for the account (only its SHA-256 is stored; `enrollment_link.created`),
    /// valid for `enrollmentLinkLifetime`.
    /// With `mailedAs`, the link (that prefix and the token) is also queued by email to the account's verified address,
    /// in the same transaction.
    /// - Returns: the token and when it expires, or nil when there is no such account.
    /// - Throws: `400 email_not_configured` when mailing it was asked of a server that does not send enrollment mail;
    ///   `409 email_not_verified` when the account has no verified address (nothing is written).
    package func createEnrollmentLink(userID: [UInt8], mailedAs linkPrefix: String? = nil) throws(ServerError) -> (token: String, expiresAt: Date)? {
        if linkPrefix != nil, mail?.settings.isEnabled(.enrollment) != true { throw ServerError(.emailNotConfigured) }
        let token = Base64URL.encode(random.bytes(count: 32))
        let now = time.now
        let link = EnrollmentTokenRecord(
            tokenHash: Self.enrollmentTokenHash(token),
            userID: userID,
            createdAt: now,
            expiresAt: now.addingTimeInterval(enrollmentLinkLifetime)
        )
        let lifetimeHours = String(Int((enrollmentLinkLifetime / 3_600).rounded(.up)))
        let made = try storage {
            try store.transaction { transaction throws(StorageError) -> Bool? in
                guard let user = try transaction.user(id: userID) else { return false }
                var message: NewMail?
                if let linkPrefix, let mail {
                    guard user.emailVerified, let address = user.email else { return nil }
                    let values = ["link": linkPrefix + token, "expiresHours": lifetimeHours]
                    message = mail.mail(.enrollment, to: address, userID: userID, values: values, now: now)
                    guard message != nil else { return nil }
                }
                try transaction.insertEnrollmentToken(link)
                try transaction.appendEvent(AccountEvent.enrollmentLinkCreated(userID: userID).event(at: now, random: random))
                if let message { _ = try transaction.enqueueMail(message) }
                return true
            }
        }
        guard let made else { throw ServerError(.emailNotVerified) }
        return made ? (token, link.expiresAt) : nil
    }

    /// What ends a registration through an enrollment link: `completeEnrollment`.
    /// What ends a registration through an enrollment link, in ONE store transaction: takes the link (of two verifies
    /// with one link, on any nodes, one gets it), adds the passkey to the link's account, stores the session and appends
    /// `passkey.registered`, `enrollment_link.used` and `session.created`. Nothing is written when it is refused.
    /// - Throws: `400 enrollment_link_invalid` when the link was used meanwhile, belongs to another account or its
    ///   account was deleted; `400 enrollment_link_expired` (the expired link is then deleted); what the store throws
    ///   (`409 credential_exists`).
    package func completeEnrollment(
        tokenHash: [UInt8],
        credential: CredentialRecord,
        session: SessionRecord,
        maximumPasskeys: Int,
        retiringPassword: Bool = false
    ) throws(ServerError) -> UserRecord {
        let now = time.now
        enum Outcome {
            case enrolled(UserRecord)
            case refused(ServerError.Code)
        }
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> Outcome in
                guard let link = try transaction.deleteEnrollmentToken(hash: tokenHash), link.userID == credential.userID,
                    let user = try transaction.user(id: link.userID)
                else { return .refused(.enrollmentLinkInvalid) }
                guard now < link.expiresAt else { return .refused(.enrollmentLinkExpired) }
                // Checked again here, as the signed-in path does: passkeys may have been added since the options.
                guard try transaction.credentials(userID: user.id).count < maximumPasskeys else {
                    return .refused(.passkeyLimitReached)
                }
                let events: [AccountEvent] = [
                    .passkeyRegistered(userID: user.id, credentialID: credential.id),
                    .enrollmentLinkUsed(userID: user.id, credentialID: credential.id),
                    .sessionCreated(session),
                ]
                try transaction.insertRegistration(
                    newUser: nil,
                    credential: credential,
                    session: session,
                    events: events.map { $0.event(at: now, random: random) }
                )
                if retiringPassword { _ = try transaction.deletePasswordHash(userID: user.id) }
                try queueNotice(.passkeyAdded, userID: user.id, account: user, in: transaction, now: now)
                return .enrolled(user)
            }
        }
        switch outcome {
        case .enrolled(let user): return user
        case .refused(let code): throw ServerError(code)
        }
    }

    // MARK: deleting

    /// What deleting an account left to do after its transaction committed.
    package struct Deletion {
        /// The deleted passkeys, whose cached keys are dropped.
        package let credentialIDs: [[UInt8]]
        /// How many Apple refresh tokens were queued for revocation.
        package let queuedRevocations: Int
        /// How many Apple identities the account had.
        package let appleIdentities: Int

        /// What became of the account's Apple tokens; nil without Sign in with Apple.
        package var appleRevocation: AccountEvent.AppleRevocation? {
            guard appleIdentities > 0 else { return nil }
            return queuedRevocations > 0 ? .queued : AccountEvent.AppleRevocation.none
        }
    }

    /// Deletes an account, the one way every path does it (`DELETE /me`, the admin API and CLI, Apple's
    /// `account-delete` of its last way in): in one transaction, then `finish`.
    /// - Returns: the deletion, or nil when there was no such account.
    @discardableResult
    package func delete(userID: [UInt8], reason: AccountEvent.DeletionReason) throws(ServerError) -> Deletion? {
        let now = time.now
        let deletion = try storage {
            try store.transaction { transaction throws(StorageError) in try delete(userID: userID, reason: reason, in: transaction, now: now) }
        }
        guard let deletion else { return nil }
        finish(deletion)
        return deletion
    }

    /// The rows of an account deletion, in the caller's transaction: queues the revocation of every Apple refresh token
    /// the account holds, one per identity and client ID (App Store guideline 5.1.1(v)), deletes the account with all
    /// its rows and appends `user.deleted`. Nil, changing nothing, when the account is already gone.
    package func delete(
        userID: [UInt8],
        reason: AccountEvent.DeletionReason,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> Deletion? {
        let credentials = try transaction.credentials(userID: userID)
        let identities = try transaction.appleIdentities(userID: userID)
        var queued = 0
        for identity in identities {
            queued += try AppleIntegration.queueRevocations(of: identity.subject, in: transaction, now: now)
        }
        let account = try transaction.user(id: userID)
        let externalID = account?.externalID
        guard try transaction.deleteUser(id: userID) else { return nil }
        if let account { try queueNotice(.accountDeleted, userID: userID, account: account, in: transaction, now: now) }
        let deletion = Deletion(credentialIDs: credentials.map(\.id), queuedRevocations: queued, appleIdentities: identities.count)
        let event = AccountEvent.userDeleted(userID: userID, reason: reason, externalID: externalID, appleRevocation: deletion.appleRevocation)
        try transaction.appendEvent(event.event(at: now, random: random))
        return deletion
    }

    /// After the commit: forgets what this node keeps of the passkeys (`forget(passkey:)`), wakes the revocation
    /// worker, and says when an account with Sign in with Apple held no refresh token to revoke (the app never sent an
    /// `authorizationCode`).
    package func finish(_ deletion: Deletion) {
        deletion.credentialIDs.forEach(forget(passkey:))
        if deletion.queuedRevocations > 0 {
            apple?.worker.wake()
        } else if deletion.appleIdentities > 0 {
            log("account deleted: no Apple refresh token was held, so none is revoked (the app never sent an authorizationCode)", event: "apple")
        }
    }

    /// Forgets what this node keeps of a passkey that went or moved to another account: its parsed key and its kept
    /// sign-in record, so that the next sign-in with it reads it (the sign-in's write would refuse a kept record of a
    /// passkey gone or moved, at the cost of one more round trip).
    package func forget(passkey credentialID: [UInt8]) {
        keys.remove(credentialID)
        signInRecords.remove(credentialID)
    }
}
