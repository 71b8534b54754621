import AccountEvents
import Foundation
import HTTPEdge
import Storage

extension AccountService {
    /// The account a verified registration creates with its first passkey.
    package struct NewPasskeyAccount: Sendable {
        package var name: String
        package var displayName: String
        /// The display name is the username because none was given.
        package var displayNameIsDefault: Bool

        package init(name: String, displayName: String, displayNameIsDefault: Bool) {
            self.name = name
            self.displayName = displayName
            self.displayNameIsDefault = displayNameIsDefault
        }
    }

    /// A new account's WebAuthn user handle: 32 random bytes, which become its id when its first passkey is stored.
    package func newUserHandle() -> [UInt8] {
        random.bytes(count: 32)
    }

    /// An enrollment link by its token's hash, with its account (nil when the account was deleted), as one read; nil
    /// when there is no such link. Whether it is still valid is the caller's to judge.
    package func enrollmentLink(hash: [UInt8]) throws(ServerError) -> (link: EnrollmentTokenRecord, user: UserRecord?)? {
        try storage {
            try store.transaction { transaction throws(StorageError) -> (link: EnrollmentTokenRecord, user: UserRecord?)? in
                guard let link = try transaction.enrollmentToken(hash: hash) else { return nil }
                return (link, try transaction.user(id: link.userID))
            }
        }
    }

    /// Stores a verified passkey with its session and `events` (`passkey.registered`, `session.created`, and
    /// `user.created` for a new account) in one transaction, at the credential's `createdAt`: on `newAccount` (made
    /// with the credential's `userID` as its id), or on the existing account `credential.userID` while it has fewer
    /// than `maximumPasskeys` (checked again: passkeys may have been added since the options), which is told by a
    /// *passkey added* notice. With `retiringPassword`, an existing account's imported password hash goes in the same
    /// transaction (`passwords.afterUpgrade: retire`).
    /// - Returns: the account.
    /// - Throws: `401 not_signed_in` when the existing account is gone; `409 passkey_limit_reached`.
    package func addPasskey(
        _ credential: CredentialRecord,
        session: SessionRecord,
        newAccount: NewPasskeyAccount?,
        events: [AccountEvent],
        maximumPasskeys: Int,
        retiringPassword: Bool
    ) throws(ServerError) -> UserRecord {
        let now = credential.createdAt
        let user: UserRecord
        if let newAccount {
            user = UserRecord(
                id: credential.userID,
                name: newAccount.name,
                displayName: newAccount.displayName,
                displayNameIsDefault: newAccount.displayNameIsDefault,
                appAccountToken: random.uuid(),
                createdAt: now
            )
        } else {
            guard let existing = try storage({ try store.user(id: credential.userID) }) else { throw ServerError(.notSignedIn) }
            guard try storage({ try store.credentials(userID: existing.id) }).count < maximumPasskeys else {
                throw ServerError(.passkeyLimitReached)
            }
            user = existing
        }
        if retiringPassword, newAccount == nil {
            // The passkey, its session and events, and the end of the account's imported password, in one transaction.
            try addPasskeyRetiringPassword(credential: credential, session: session, events: events)
            return user
        }
        // The account or credential, the session and their events in one transaction: one durable commit (see
        // `CeremonyStore`).
        try storage {
            try store.completeRegistration(
                newUser: newAccount == nil ? nil : user,
                credential: credential,
                session: session,
                events: events.map { $0.event(at: now, random: random) },
                mail: newAccount == nil ? [Self.noticeMail(.passkeyAdded, to: user, mail: mail, now: now)].compactMap { $0 } : []
            )
        }
        return user
    }

    /// Stores a passkey of an existing account with its session and events, and deletes the account's imported
    /// password hash, in one transaction (`passwords.afterUpgrade: retire`).
    private func addPasskeyRetiringPassword(credential: CredentialRecord, session: SessionRecord, events: [AccountEvent]) throws(ServerError) {
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.insertRegistration(
                    newUser: nil,
                    credential: credential,
                    session: session,
                    events: events.map { $0.event(at: now, random: random) }
                )
                _ = try transaction.deletePasswordHash(userID: credential.userID)
                try queueNotice(.passkeyAdded, userID: credential.userID, in: transaction, now: now)
            }
        }
    }
}
