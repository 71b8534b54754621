import AppleSignIn
import CryptoCore
import Foundation
import HTTPEdge
import JSON
import Storage

/// An account change, as the event outbox records it (`NewEvent`), appended in the transaction of the change.
///
/// Each type's payload (`data`, JSON) carries `userId` (the base64url user handle) and what names the thing that
/// changed: `credentialId` for passkey events, `sessionId` (the base64url public session ID) for session events,
/// `appleUserId` (Apple's `sub`) for Apple events, and the case's own members (`previousUserId`, `previousAppleUserId`,
/// `changes`: the names of changed members). Never a token, key, challenge, credential public key, email address or
/// name.
package enum AccountEvent: Equatable {
    /// An account was created, by a passkey registration, a first Sign in with Apple, the admin API or an import
    /// (`method`).
    /// `externalID`: the app's own id of the account (`externalId`), when it has one, so that the app's backend can
    /// map the account from its lifecycle events (as on `user.updated` and `user.deleted`).
    case userCreated(userID: [UInt8], method: CreationMethod, externalID: String? = nil)
    /// An account was deleted with everything in it.
    /// `appleRevocation`: what became of its Apple refresh tokens, when it had Sign in with Apple.
    case userDeleted(userID: [UInt8], reason: DeletionReason, externalID: String? = nil, appleRevocation: AppleRevocation? = nil)
    /// The account's display name, email or external id changed (`changes` names the members, never their values).
    case userUpdated(userID: [UInt8], changes: [String], externalID: String? = nil)
    /// Another account was merged into this one (the survivor); `previousUserID` went away, its passkeys and Apple
    /// identities now belong to the survivor.
    case userMerged(userID: [UInt8], previousUserID: [UInt8])
    /// An admin disabled the account: its sessions and OpenID grants ended with it, and no sign-in gets in.
    case userDisabled(userID: [UInt8], externalID: String? = nil)
    /// An admin enabled the disabled account again.
    case userEnabled(userID: [UInt8], externalID: String? = nil)
    /// A passkey was registered (the first of a new account, or another).
    /// `upgrade`: made by an automatic passkey upgrade (a conditional registration after a password sign-in).
    case passkeyRegistered(userID: [UInt8], credentialID: [UInt8], upgrade: Bool = false)
    /// A passkey was renamed.
    case passkeyRenamed(userID: [UInt8], credentialID: [UInt8])
    /// A passkey was deleted.
    case passkeyDeleted(userID: [UInt8], credentialID: [UInt8])
    /// A sign-in with the passkey was refused because its signature counter did not increase (a possible clone).
    case passkeyCloneWarning(userID: [UInt8], credentialID: [UInt8])
    /// A sign-in reported a backup eligibility (BE) flag other than the one registered.
    case passkeyBackupEligibilityChanged(userID: [UInt8], credentialID: [UInt8], backupEligible: Bool)
    /// A session was created (`SessionRecord.method`, and the passkey or Apple identity that made it).
    case sessionCreated(SessionRecord)
    /// A session was ended before it expired.
    case sessionRevoked(SessionRecord, reason: RevocationReason)
    /// An Apple identity was linked to the account (also on the first Sign in with Apple of a new account), with
    /// Apple's `real_user_status` of that sign-in (0, 1, 2) when Apple sent one.
    case appleLinked(userID: [UInt8], appleUserID: String, realUserStatus: Int?)
    /// An Apple identity was removed from the account.
    case appleUnlinked(userID: [UInt8], appleUserID: String, reason: UnlinkReason)
    /// Apple's `consent-revoked`: the identity's sessions ended and its refresh tokens were dropped; the link stays.
    case appleConsentRevoked(userID: [UInt8], appleUserID: String)
    /// The identity was re-keyed to the recipient team's `sub` after an app transfer (`previousAppleUserID` is the
    /// sending team's).
    case appleTransferred(userID: [UInt8], appleUserID: String, previousAppleUserID: String)
    /// Apple stopped forwarding mail to the identity's private relay address.
    case appleEmailDisabled(userID: [UInt8], appleUserID: String)
    /// Apple forwards mail to the identity's private relay address again.
    case appleEmailEnabled(userID: [UInt8], appleUserID: String)
    /// An identity at an OpenID provider (`provider` as configured, the token's `iss` and `sub`) was linked to the
    /// account (also on the first sign-in of a new account).
    case identityLinked(userID: [UInt8], provider: String, issuer: String, subject: String)
    /// An identity at an OpenID provider was removed from the account.
    case identityUnlinked(userID: [UInt8], provider: String, issuer: String, subject: String)
    /// A new set of recovery codes replaced the account's old one (`POST /me/recovery-codes`).
    case recoveryCodesCreated(userID: [UInt8])
    /// A recovery code was used (`POST /auth/recovery`); `remaining` codes are left.
    case recoveryCodeUsed(userID: [UInt8], remaining: Int)
    /// A recovery link sent by email was used (`POST /auth/recovery/email/session`).
    case recoveryLinkUsed(userID: [UInt8])
    /// The admin API made an enrollment link for the account.
    case enrollmentLinkCreated(userID: [UInt8])
    /// An enrollment link was used: the passkey `credentialID` was registered through it.
    case enrollmentLinkUsed(userID: [UInt8], credentialID: [UInt8])
    /// Failed password sign-ins look like credential stuffing (`CredentialStuffingSignals`): `accounts_per_address`
    /// (`address` tried `count` accounts; no account) or `addresses_per_account` (the account, when the name or email
    /// tried is one, was tried from `count` addresses).
    case passwordStuffingSuspected(userID: [UInt8]?, signal: String, count: Int, address: String?)
    /// A provider reported that a message to the account's address bounced (`hard`, `soft`) or drew a spam complaint
    /// (`complaint`) after the relay accepted it; `suppressed` when it stopped further mail to the address.
    case emailBounced(userID: [UInt8], bounce: MailBounceKind, provider: String, suppressed: Bool)

    /// How an account came to be.
    package enum CreationMethod: String {
        case passkey, apple
        /// A first sign-in with an OpenID provider (`POST /auth/{provider}`).
        case identityProvider = "oidc"
        /// `POST /admin/users` or `passkeyd admin users create`.
        case admin
        /// `POST /admin/import` or `passkeyd admin import`.
        case `import`
    }

    /// Why an account was deleted.
    package enum DeletionReason: String {
        /// The signed-in person deleted it (`DELETE /me`).
        case `self`
        /// Apple's `account-delete` notification for its only way to sign in.
        case appleAccountDeleted = "apple_account_deleted"
        /// The admin API or `passkeyd admin users delete`.
        case admin
    }

    /// What an account deletion did with Apple's refresh tokens (App Store guideline 5.1.1(v)).
    package enum AppleRevocation: String {
        /// Queued for revocation at Apple (the worker revokes them).
        case queued
        /// None was held: the app never sent an `authorizationCode`, so nothing can be revoked.
        case none
    }

    /// Why a session was ended.
    package enum RevocationReason: String {
        /// `POST /logout`.
        case logout
        /// Apple's `consent-revoked` notification for the Apple identity that made the session.
        case appleConsentRevoked = "apple_consent_revoked"
        /// Apple's `account-delete` notification for the Apple identity that made the session.
        case appleAccountDeleted = "apple_account_deleted"
        /// `DELETE /me/apple/{appleUserID}` for the Apple identity that made the session.
        case appleUnlinked = "apple_unlinked"
        /// The session's account was merged into another (`POST /me/merge`).
        case merged
        /// The signed-in person ended it from another session (`DELETE /me/sessions/{id}`, `POST /me/sessions/revoke-others`).
        case user
        /// The admin API or `passkeyd admin users revoke-sessions`.
        case admin
        /// The passkey that signed the session in was deleted.
        case passkeyDeleted = "passkey_deleted"
        /// `passkeyd restore` put the store back from a backup: every session it held may have been ended since.
        case restore
        /// An admin disabled the account.
        case userDisabled = "user_disabled"
        /// The session that made the hand-off link the session was started from ended (`parentSessionId`), by any path.
        case parentEnded = "parent_ended"
        /// `DELETE /me/identities/{provider}/{subject}` for the identity at an OpenID provider that made the session.
        case identityUnlinked = "identity_unlinked"
    }

    /// The `session.revoked` events of sessions a store deletion ended: `reason` for each, then `parent_ended` for
    /// each session handed off from another one that ended with it.
    package static func revocations(of ended: [SessionRecord], reason: RevocationReason) -> [AccountEvent] {
        let endedIDs = Set(ended.map(\.id))
        let isTakenAlong = { (session: SessionRecord) in session.parentID.map(endedIDs.contains) == true }
        return ended.filter { !isTakenAlong($0) }.map { .sessionRevoked($0, reason: reason) }
            + ended.filter(isTakenAlong).map { .sessionRevoked($0, reason: .parentEnded) }
    }

    /// Why an Apple identity was unlinked.
    package enum UnlinkReason: String {
        /// The signed-in person removed it (`DELETE /me/apple/{appleUserID}`).
        case user
        /// Apple's `account-delete` notification; the account had another way in, so it stays.
        case appleAccountDeleted = "apple_account_deleted"
    }

    /// The event types, each with its wire form: the one list of them (webhook `events` filters are checked against it).
    package enum Kind: String, CaseIterable {
        case userCreated = "user.created"
        case userDeleted = "user.deleted"
        case userUpdated = "user.updated"
        case userMerged = "user.merged"
        case userDisabled = "user.disabled"
        case userEnabled = "user.enabled"
        case passkeyRegistered = "passkey.registered"
        case passkeyRenamed = "passkey.renamed"
        case passkeyDeleted = "passkey.deleted"
        case passkeyCloneWarning = "passkey.clone_warning"
        case passkeyBackupEligibilityChanged = "passkey.backup_eligibility_changed"
        case sessionCreated = "session.created"
        case sessionRevoked = "session.revoked"
        case appleLinked = "apple.linked"
        case appleConsentRevoked = "apple.consent_revoked"
        case appleUnlinked = "apple.unlinked"
        case appleTransferred = "apple.transferred"
        case appleEmailDisabled = "apple.email_disabled"
        case appleEmailEnabled = "apple.email_enabled"
        case identityLinked = "identity.linked"
        case identityUnlinked = "identity.unlinked"
        case recoveryCodesCreated = "recovery_codes.created"
        case recoveryCodeUsed = "recovery_code.used"
        case recoveryLinkUsed = "recovery_link.used"
        case enrollmentLinkCreated = "enrollment_link.created"
        case enrollmentLinkUsed = "enrollment_link.used"
        case passwordStuffingSuspected = "password.stuffing_suspected"
        case emailBounced = "email.bounced"
    }

    package var kind: Kind {
        switch self {
        case .userCreated: .userCreated
        case .userDeleted: .userDeleted
        case .userUpdated: .userUpdated
        case .userMerged: .userMerged
        case .userDisabled: .userDisabled
        case .userEnabled: .userEnabled
        case .passkeyRegistered: .passkeyRegistered
        case .passkeyRenamed: .passkeyRenamed
        case .passkeyDeleted: .passkeyDeleted
        case .passkeyCloneWarning: .passkeyCloneWarning
        case .passkeyBackupEligibilityChanged: .passkeyBackupEligibilityChanged
        case .sessionCreated: .sessionCreated
        case .sessionRevoked: .sessionRevoked
        case .appleLinked: .appleLinked
        case .appleConsentRevoked: .appleConsentRevoked
        case .appleUnlinked: .appleUnlinked
        case .appleTransferred: .appleTransferred
        case .appleEmailDisabled: .appleEmailDisabled
        case .appleEmailEnabled: .appleEmailEnabled
        case .identityLinked: .identityLinked
        case .identityUnlinked: .identityUnlinked
        case .recoveryCodesCreated: .recoveryCodesCreated
        case .recoveryCodeUsed: .recoveryCodeUsed
        case .recoveryLinkUsed: .recoveryLinkUsed
        case .enrollmentLinkCreated: .enrollmentLinkCreated
        case .enrollmentLinkUsed: .enrollmentLinkUsed
        case .passwordStuffingSuspected: .passwordStuffingSuspected
        case .emailBounced: .emailBounced
        }
    }

    /// The event type, such as "passkey.registered".
    package var type: String { kind.rawValue }

    /// The account the event concerns; nil for `password.stuffing_suspected` from one address, which concerns none.
    package var userID: [UInt8]? {
        switch self {
        case .userCreated(let userID, _, _), .userDeleted(let userID, _, _, _), .userUpdated(let userID, _, _), .userMerged(let userID, _),
            .passkeyRegistered(let userID, _, _), .passkeyRenamed(let userID, _), .passkeyDeleted(let userID, _),
            .passkeyCloneWarning(let userID, _), .passkeyBackupEligibilityChanged(let userID, _, _), .appleLinked(let userID, _, _),
            .appleUnlinked(let userID, _, _), .appleConsentRevoked(let userID, _), .appleTransferred(let userID, _, _),
            .appleEmailDisabled(let userID, _), .appleEmailEnabled(let userID, _), .recoveryCodesCreated(let userID),
            .recoveryCodeUsed(let userID, _), .recoveryLinkUsed(let userID), .enrollmentLinkCreated(let userID), .enrollmentLinkUsed(let userID, _),
            .identityLinked(let userID, _, _, _), .identityUnlinked(let userID, _, _, _), .userDisabled(let userID, _),
            .userEnabled(let userID, _), .emailBounced(let userID, _, _, _):
            userID
        case .sessionCreated(let session), .sessionRevoked(let session, _):
            session.userID
        case .passwordStuffingSuspected(let userID, _, _, _):
            userID
        }
    }

    /// The payload's members; absent ones are left out of the JSON.
    package struct Payload: DirectJSONBody, Equatable {
        package var userId: String?
        package var appleRevocation: String?
        package var credentialId: String?
        package var sessionId: String?
        package var appleUserId: String?
        package var method: String?
        package var reason: String?
        package var backupEligible: Bool?
        package var previousUserId: String?
        package var previousAppleUserId: String?
        /// `apple.linked`: Apple's `real_user_status` (`unsupported`, `unknown`, `likelyReal`), as `/me` shows it.
        package var realUserStatus: String?
        package var changes: [String]?
        package var remaining: Int?
        package var externalId: String?
        package var upgrade: Bool?
        /// Identity events: the configured provider name, and the identity's issuer and subject.
        package var provider: String?
        package var issuer: String?
        package var subject: String?
        /// Session events of a hand-off session: the session that made its link.
        package var parentSessionId: String?
        /// `password.stuffing_suspected`: the signal, its distinct count, and the client address of
        /// `accounts_per_address`.
        package var signal: String?
        package var count: Int?
        package var address: String?
        /// `email.bounced`: `hard`, `soft` or `complaint`, and whether the address is now suppressed.
        package var bounce: String?
        package var suppressed: Bool?

        package init(
            userId: String? = nil,
            appleRevocation: String? = nil,
            credentialId: String? = nil,
            sessionId: String? = nil,
            appleUserId: String? = nil,
            method: String? = nil,
            reason: String? = nil,
            backupEligible: Bool? = nil,
            previousUserId: String? = nil,
            previousAppleUserId: String? = nil,
            realUserStatus: String? = nil,
            changes: [String]? = nil,
            remaining: Int? = nil,
            externalId: String? = nil,
            upgrade: Bool? = nil,
            provider: String? = nil,
            issuer: String? = nil,
            subject: String? = nil,
            parentSessionId: String? = nil,
            signal: String? = nil,
            count: Int? = nil,
            address: String? = nil,
            bounce: String? = nil,
            suppressed: Bool? = nil
        ) {
            self.userId = userId
            self.appleRevocation = appleRevocation
            self.credentialId = credentialId
            self.sessionId = sessionId
            self.appleUserId = appleUserId
            self.method = method
            self.reason = reason
            self.backupEligible = backupEligible
            self.previousUserId = previousUserId
            self.previousAppleUserId = previousAppleUserId
            self.realUserStatus = realUserStatus
            self.changes = changes
            self.remaining = remaining
            self.externalId = externalId
            self.upgrade = upgrade
            self.provider = provider
            self.issuer = issuer
            self.subject = subject
            self.parentSessionId = parentSessionId
            self.signal = signal
            self.count = count
            self.address = address
            self.bounce = bounce
            self.suppressed = suppressed
        }
    }

    package var payload: Payload {
        var payload = Payload(userId: userID.map(Base64URL.encode))
        switch self {
        case .userCreated(_, let method, let externalID):
            payload.method = method.rawValue
            payload.externalId = externalID
        case .userDeleted(_, let reason, let externalID, let appleRevocation):
            payload.reason = reason.rawValue
            payload.externalId = externalID
            payload.appleRevocation = appleRevocation?.rawValue
        case .userUpdated(_, let changes, let externalID):
            payload.changes = changes
            payload.externalId = externalID
        case .userDisabled(_, let externalID), .userEnabled(_, let externalID):
            payload.externalId = externalID
        case .userMerged(_, let previousUserID):
            payload.previousUserId = Base64URL.encode(previousUserID)
        case .passkeyRegistered(_, let credentialID, let upgrade):
            payload.credentialId = Base64URL.encode(credentialID)
            if upgrade { payload.upgrade = true }
        case .passkeyRenamed(_, let credentialID), .passkeyDeleted(_, let credentialID),
            .passkeyCloneWarning(_, let credentialID), .enrollmentLinkUsed(_, let credentialID):
            payload.credentialId = Base64URL.encode(credentialID)
        case .passkeyBackupEligibilityChanged(_, let credentialID, let backupEligible):
            payload.credentialId = Base64URL.encode(credentialID)
            payload.backupEligible = backupEligible
        case .sessionCreated(let session):
            payload.describe(session)
        case .sessionRevoked(let session, let reason):
            payload.describe(session)
            payload.reason = reason.rawValue
        case .appleLinked(_, let subject, let status):
            payload.appleUserId = subject
            payload.realUserStatus = status.flatMap(RealUserStatus.init(rawValue:)).map { "\($0)" }
        case .appleConsentRevoked(_, let subject), .appleEmailDisabled(_, let subject), .appleEmailEnabled(_, let subject):
            payload.appleUserId = subject
        case .appleTransferred(_, let subject, let previousSubject):
            payload.appleUserId = subject
            payload.previousAppleUserId = previousSubject
        case .appleUnlinked(_, let subject, let reason):
            payload.appleUserId = subject
            payload.reason = reason.rawValue
        case .identityLinked(_, let provider, let issuer, let subject), .identityUnlinked(_, let provider, let issuer, let subject):
            (payload.provider, payload.issuer, payload.subject) = (provider, issuer, subject)
        case .recoveryCodesCreated, .enrollmentLinkCreated, .recoveryLinkUsed:
            break
        case .recoveryCodeUsed(_, let remaining):
            payload.remaining = remaining
        case .passwordStuffingSuspected(_, let signal, let count, let address):
            (payload.signal, payload.count, payload.address) = (signal, count, address)
        case .emailBounced(_, let bounce, let provider, let suppressed):
            (payload.bounce, payload.provider, payload.suppressed) = (bounce.rawValue, provider, suppressed)
        }
        return payload
    }

    /// The outbox row for the change, which happened at `occurredAt`, under a new time-ordered UUID made from the time and
    /// `random`: the event's identity, which never repeats (`NewEvent.id`).
    package func event(at occurredAt: Date, random: any RandomSource) -> NewEvent {
        NewEvent(id: random.uuidVersion7(at: occurredAt), type: type, userID: userID, occurredAt: occurredAt, data: JSONBody.encode(payload))
    }
}

extension AccountEvent.Payload {
    /// The members in the sorted order of `JSONBody`'s encoder, nil left out (every sign-in writes one).
    package func write(to object: inout JSONObjectWriter) {
        if let address { object.add("address", address) }
        if let appleRevocation { object.add("appleRevocation", appleRevocation) }
        if let appleUserId { object.add("appleUserId", appleUserId) }
        if let backupEligible { object.add("backupEligible", backupEligible) }
        if let bounce { object.add("bounce", bounce) }
        if let changes { object.add("changes", changes) }
        if let count { object.add("count", Int64(count)) }
        if let credentialId { object.add("credentialId", credentialId) }
        if let externalId { object.add("externalId", externalId) }
        if let issuer { object.add("issuer", issuer) }
        if let method { object.add("method", method) }
        if let parentSessionId { object.add("parentSessionId", parentSessionId) }
        if let previousAppleUserId { object.add("previousAppleUserId", previousAppleUserId) }
        if let realUserStatus { object.add("realUserStatus", realUserStatus) }
        if let previousUserId { object.add("previousUserId", previousUserId) }
        if let provider { object.add("provider", provider) }
        if let reason { object.add("reason", reason) }
        if let remaining { object.add("remaining", Int64(remaining)) }
        if let sessionId { object.add("sessionId", sessionId) }
        if let signal { object.add("signal", signal) }
        if let subject { object.add("subject", subject) }
        if let suppressed { object.add("suppressed", suppressed) }
        if let upgrade { object.add("upgrade", upgrade) }
        if let userId { object.add("userId", userId) }
    }

    /// A session's public ID, method, the passkey, Apple or OpenID provider identity that signed it in, and the session
    /// that made its hand-off link.
    fileprivate mutating func describe(_ session: SessionRecord) {
        sessionId = Base64URL.encode(session.id)
        method = session.method.rawValue
        credentialId = session.credentialID.map(Base64URL.encode)
        appleUserId = session.appleSubject
        issuer = session.federatedIssuer
        subject = session.federatedSubject
        parentSessionId = session.parentID.map(Base64URL.encode)
    }
}
