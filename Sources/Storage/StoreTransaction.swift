import Foundation

/// The record-level reads and writes of one transaction (`TransactionalStore.transaction`). Each operation is atomic
/// on its own; the transaction makes a body of them atomic together. Reads see the transaction's own writes.
///
/// Compound account operations (deleting an account, linking, merging, revoking sessions) are written once, on top of
/// these, driver-independently (see `deleteCredentialUnlessLast` and the server's account service), and append the
/// event that describes them in the same transaction.
public protocol StoreTransaction {
    // MARK: users

    /// The user with this handle, or nil.
    func user(id: [UInt8]) throws(StorageError) -> UserRecord?

    /// The user whose username has the key of `name` (`UserRecord.nameKey(of:)`), or nil.
    func user(name: String) throws(StorageError) -> UserRecord?

    /// The users whose `email` is `email`, compared ASCII case-insensitively, and verified (`emailVerified`),
    /// ordered by `createdAt`, then by `id`.
    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord]

    /// Stores a new user.
    /// - Throws: `storage.duplicateKey` when a user with `user.id` or `user.appAccountToken` exists;
    ///   `storage.usernameTaken` when another user's name has the key of `user.name`; `storage.invalidRecord` when it breaks a bound
    ///   (`UserRecord.validate`).
    func insertUser(_ user: UserRecord) throws(StorageError)

    /// Writes the name, display name (and whether it is a default), email and email verification of the user with
    /// `user.id`; its `appAccountToken` and `createdAt` never change.
    /// - Returns: false, changing nothing, when there is no such user.
    /// - Throws: `storage.usernameTaken` when another user's name has the key of `user.name`; `storage.invalidRecord` as
    ///   `insertUser`.
    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool

    /// Deletes the user and every row of the account: its credentials, sessions, Apple identities (with their refresh
    /// tokens), link declines, enrollment links, recovery codes, authorization codes, grants (with their refresh tokens) and the challenges issued for it (those whose `userID`
    /// is this user). Queued Apple revocations and events are kept.
    /// - Returns: whether there was such a user.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool

    // MARK: credentials

    /// The credential with this ID, whoever owns it, or nil.
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord?

    /// The user's credentials ordered by `createdAt`, then by `id`.
    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord]

    /// Stores a credential of an existing user.
    /// - Throws: `storage.credentialExists` when a credential with this ID exists (for any user; reported before a
    ///   missing user); `storage.notFound` when `credential.userID` is not an existing user.
    func insertCredential(_ credential: CredentialRecord) throws(StorageError)

    /// Records an assertion that is not a sign-in (such as a refused one that raised the clone warning): sets
    /// `backupEligible`, `backupState` and `lastUsedAt = update.usedAt`, and `signCount` unless the stored counter is
    /// greater (a counter never goes back); `cloneWarning` and `backupEligibilityChanged` become true when passed
    /// true and stay true once set. Other fields are unchanged.
    /// - Throws: `storage.notFound` when no credential has this ID.
    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError)

    /// Sets the label of the user's credential.
    /// - Returns: false, changing nothing, when that user has no credential with this ID.
    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool

    /// Gives every credential of the user `userID` to the user `targetUserID` (an account merge); their other fields,
    /// `userHandle` included, are unchanged.
    /// - Returns: how many credentials moved.
    /// - Throws: `storage.notFound` when `targetUserID` is not an existing user (and the user has credentials).
    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int

    /// Deletes the user's credential, whatever is left of the account (`deleteCredentialUnlessLast` keeps the last
    /// way to sign in).
    /// - Returns: false, changing nothing, when that user has no credential with this ID.
    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool

    // MARK: sessions

    /// Stores a new session.
    /// - Throws: `storage.notFound` when `session.userID` is not an existing user; `storage.duplicateKey` when a
    ///   session with the same token hash or ID is stored; `storage.invalidRecord` when it breaks a bound
    ///   (`SessionRecord.validate`).
    func insertSession(_ session: SessionRecord) throws(StorageError)

    /// The user's unexpired sessions (`now < expiresAt`), ordered by `createdAt`, then by `id`.
    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord]

    /// Deletes the session with this token hash (signing out).
    /// - Returns: the deleted session, or nil when there was none.
    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> SessionRecord?

    /// Deletes the user's session with this public ID; another user's session with that ID is left alone.
    /// - Returns: the deleted session, or nil when the user has none with this ID.
    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> SessionRecord?

    /// Deletes every session of the user (expired ones too) except the one whose ID is `keptID` ("sign out
    /// everywhere else"); all of them when `keptID` is nil.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord]

    /// Deletes every session the passkey signed in (`credentialID`), whoever owns it.
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(credentialID: [UInt8]) throws(StorageError) -> [SessionRecord]

    /// Deletes every session the Apple identity signed in (`appleSubject`).
    /// - Returns: the deleted sessions, ordered by `createdAt`, then by `id`.
    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord]

    /// Makes the sessions the Apple identity `appleSubject` signed in name `newSubject` instead (the identity was
    /// re-keyed after an app transfer).
    /// - Returns: how many sessions changed.
    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int

    // MARK: users, for administration

    /// At most `limit` users whose name key (`UserRecord.nameKey(of:)`) starts with the key of `prefix` (every user for
    /// ""), ordered by name key byte-wise (UTF-8), after the user whose key is `after`'s when it is given: a cursor over
    /// the accounts, for the admin API's search (case-insensitive) and export.
    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord]

    /// At most `limit` users whose `email` is `email`, compared ASCII case-insensitively, verified or not, ordered by
    /// `createdAt`, then by `id`: the admin API's search by email.
    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord]

    // MARK: enrollment links

    /// Stores a new enrollment link.
    /// - Throws: `storage.notFound` when `token.userID` is not an existing user; `storage.duplicateKey` when a link
    ///   with the same token hash is stored.
    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError)

    /// The enrollment link with this token hash, expired or not, or nil.
    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord?

    /// Deletes the enrollment link with this token hash (using it). Of any number of concurrent transactions taking the
    /// same link, across connections and processes sharing the database, exactly one commits having got it.
    /// - Returns: the deleted link, expired or not, or nil when there was none.
    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord?

    /// Deletes every enrollment link with `expiresAt <= now`.
    /// - Returns: how many were deleted.
    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int

    // MARK: recovery codes

    /// Replaces the user's recovery codes with `hashes` (the SHA-256 of each code): the old set is gone.
    /// - Throws: `storage.notFound` when `userID` is not an existing user.
    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError)

    /// Deletes the user's recovery code with this hash (using it). Of any number of concurrent transactions using the
    /// same code, across connections and processes sharing the database, exactly one commits having got true.
    /// - Returns: whether the user had that code.
    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool

    /// How many unused recovery codes the user has.
    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int

    // MARK: Apple identities

    /// The identity with this subject, or nil. Subjects are compared exactly.
    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord?

    /// The user's identities ordered by `createdAt`, then by subject.
    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord]

    /// The identity whose `transferSubject` is this one, or nil.
    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord?

    /// At most `limit` identities whose subject sorts after `subject` (byte-wise; from the first with nil), ordered by
    /// subject: a cursor over every identity, for the transfer commands.
    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord]

    /// Links an Apple identity to an existing account.
    /// - Throws: `storage.appleIdentityTaken` when the subject is linked to any account (this one included);
    ///   `storage.duplicateKey` when `identity.transferSubject` is another identity's; `storage.notFound` when
    ///   `identity.userID` is not an existing user.
    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError)

    /// Removes the identity (with its refresh tokens), leaving the account.
    /// - Returns: whether an identity was removed.
    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool

    /// Writes every field of `identity` (its subject and account included) to the identity whose subject is `subject`:
    /// how a sign-in, a notification, a merge or a transfer changes one. Its refresh tokens follow a new subject.
    /// - Returns: false, changing nothing, when there is no identity with `subject`.
    /// - Throws: `storage.appleIdentityTaken` when `identity.subject` is another identity's; `storage.duplicateKey` when
    ///   `identity.transferSubject` is another identity's; `storage.notFound` when `identity.userID` is no user.
    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool

    /// Gives every Apple identity of the user `userID` to the user `targetUserID` (an account merge).
    /// - Returns: how many identities moved.
    /// - Throws: `storage.notFound` when `targetUserID` is not an existing user (and the user has identities).
    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int

    // MARK: Apple refresh tokens

    /// Stores the encrypted refresh token of the identity for `clientID`, replacing the one held for that pair.
    /// - Returns: false, storing nothing, when there is no identity with this subject.
    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool

    /// The refresh tokens held for the identity, ordered by client ID.
    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord]

    /// Deletes the refresh tokens held for the identity.
    /// - Returns: the deleted tokens, ordered by client ID.
    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord]

    // MARK: link suggestions

    /// Remembers that the person refused to link the two accounts (idempotent).
    /// - Throws: `storage.notFound` when either is not an existing user.
    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError)

    /// Whether the pair was refused.
    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool

    // MARK: Apple replay guard

    /// Remembers `hash` until `until`, unless an unexpired entry (`now < until` of that entry) is remembered; an
    /// expired entry for `hash` is replaced. Of any number of concurrent transactions with the same hash exactly one
    /// commits having got true, across connections and processes sharing the database. The server remembers the
    /// SHA-256 of every raw nonce, of every identity token and of every notification's `jti` here (each hashed with
    /// its own prefix), each until the token or notification expires.
    /// - Returns: true when the hash was not remembered (it is now); false when an unexpired entry exists.
    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool

    /// The time of the newest notification applied for the Apple `sub` (`event_time`), unless its entry expired
    /// (`until <= now`); nil when there is none.
    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date?

    /// Records that a notification of `eventAt` was applied for the Apple `sub`: the watermark becomes the later of
    /// the stored one and `eventAt`, kept until `until` (or the stored entry's, when later). An expired entry is
    /// replaced.
    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError)

    // MARK: Apple revocations

    /// Queues a refresh token for revocation (`AppleRevocationQueue`).
    /// - Returns: the new entry's ID, increasing in insertion order.
    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64

    // MARK: signing keys

    /// Every signing key, ordered by `activatesAt`, then by `id`.
    func signingKeys() throws(StorageError) -> [SigningKeyRecord]

    /// Stores a new signing key.
    /// - Throws: `storage.duplicateKey` when a key with this ID is stored; `storage.invalidRecord` when it breaks a
    ///   bound (`SigningKeyRecord.validate`).
    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError)

    /// Sets when the key stops signing and when it stops being published; other fields are unchanged.
    /// - Returns: false, changing nothing, when there is no key with this ID.
    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool

    /// Deletes the key (once it is no longer published).
    /// - Returns: whether there was such a key.
    func deleteSigningKey(id: String) throws(StorageError) -> Bool

    // MARK: OpenID provider

    /// Stores a new authorization code.
    /// - Throws: `storage.notFound` when `code.userID` is not an existing user; `storage.duplicateKey` when a code with
    ///   the same hash is stored; `storage.invalidRecord` when it breaks a bound (`AuthorizationCodeRecord.validate`).
    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError)

    /// Uses the code with this hash: sets its `usedAt` to `now` when it is unused. Of any number of concurrent
    /// transactions using the same code, across connections and processes sharing the database, exactly one commits
    /// having got it with `usedAt` nil.
    /// - Returns: the code as it was before this call (expired or not; `usedAt` set when it had been used: a replay),
    ///   or nil when there is none.
    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord?

    /// Stores a new grant (a refresh-token family).
    /// - Throws: `storage.notFound` when `grant.userID` is not an existing user; `storage.duplicateKey` when a grant
    ///   with this ID is stored; `storage.invalidRecord` when it breaks a bound (`OAuthGrantRecord.validate`).
    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError)

    /// The grant with this ID, expired or not, or nil.
    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord?

    /// Deletes the grant with its refresh tokens (revocation, reuse detection).
    /// - Returns: whether there was such a grant.
    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool

    /// Stores a refresh token of an existing grant.
    /// - Throws: `storage.notFound` when `token.grantID` is no grant; `storage.duplicateKey` when a token with the same
    ///   hash is stored.
    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError)

    /// The refresh token with this hash, used or not, or nil.
    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord?

    /// Uses the refresh token with this hash: sets its `usedAt` to `now` when it is unused. Of any number of
    /// concurrent transactions using the same token exactly one commits having got it with `usedAt` nil.
    /// - Returns: the token as it was before this call, or nil when there is none.
    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord?

    /// Deletes every authorization code with `expiresAt <= now` and every grant with `expiresAt <= now` (with its
    /// refresh tokens).
    /// - Returns: how many codes and grants were deleted.
    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int

    // MARK: events

    /// Appends an event to the outbox (`EventStore`), committed with the transaction, and a pending delivery of it to
    /// every endpoint subscribed to its type (`WebhookDeliveryStore`): due at `event.occurredAt` when no delivery of the
    /// same user to that endpoint is pending, waiting behind it otherwise.
    /// - Returns: the event's ID.
    /// - Throws: `storage.invalidRecord` when the event breaks a bound (`NewEvent.validate`).
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64

    // MARK: webhooks

    /// The endpoints that get deliveries, ordered by endpoint ID.
    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription]

    /// Subscribes the endpoint to its event types, replacing what it had: events appended from now on get a delivery to
    /// it when their type is one of them (every type when `eventTypes` is nil).
    /// - Throws: `storage.invalidRecord` when the subscription breaks a bound (`WebhookSubscription.validate`).
    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError)

    /// Unsubscribes the endpoint and gives up its pending deliveries (`dead`, `lastError = reason`, lease cleared;
    /// an operator may queue them again).
    /// - Returns: how many pending deliveries were given up.
    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int

    /// The delivery with this ID, or nil.
    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord?

    /// Queues a dead delivery again (the admin API's retry): pending, due at `now`, `queuedAt = now` (a new retry
    /// horizon), no attempts, no lease; the last status and error are kept until the next attempt. It goes before every
    /// later pending delivery of its chain.
    /// - Returns: false, changing nothing, when there is no dead delivery with this ID.
    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool
}

extension StoreTransaction {
    /// Appends `events` in their order.
    public func appendEvents(_ events: [NewEvent]) throws(StorageError) {
        for event in events {
            try appendEvent(event)
        }
    }

    /// The writes of `CeremonyStore.completeRegistration`, record by record, for the drivers whose ceremony is a
    /// transaction of record operations (in memory, SQLite; PostgreSQL writes them as one statement). The caller has
    /// checked `CeremonyStore.checkRegistration`.
    public func insertRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        if let newUser {
            try insertUser(newUser)
        }
        try insertCredential(credential)
        try insertSession(session)
        try appendEvents(events)
    }

    /// Re-keys an Apple identity to the recipient team's `sub` after an app transfer, with what follows it: writes
    /// `identity` (with its new subject) over the one with `subject`, makes the sessions it signed in name the new
    /// subject, and drops the sending team's refresh tokens (the recipient team cannot revoke them).
    /// - Returns: false, changing nothing, when there is no identity with `subject`.
    /// - Throws: what `updateAppleIdentity` throws (`storage.appleIdentityTaken` when the new subject is another's).
    public func reKeyAppleIdentity(_ identity: AppleIdentityRecord, from subject: String) throws(StorageError) -> Bool {
        guard try updateAppleIdentity(identity, subject: subject) else { return false }
        _ = try moveSessions(appleSubject: subject, to: identity.subject)
        _ = try deleteAppleRefreshTokens(subject: identity.subject)
        return true
    }

    /// Makes the store's webhook subscriptions those of `subscriptions` (the configuration's endpoints at start-up):
    /// sets each, and removes every other endpoint, giving up its pending deliveries with `removalReason`.
    /// - Returns: the IDs of the endpoints removed and how many pending deliveries they had.
    @discardableResult
    public func configureWebhookSubscriptions(
        _ subscriptions: [WebhookSubscription],
        removalReason: String,
        now: Date
    ) throws(StorageError) -> [(endpointID: String, abandoned: Int)] {
        let kept = Set(subscriptions.map(\.endpointID))
        var removed: [(endpointID: String, abandoned: Int)] = []
        for stored in try webhookSubscriptions() where !kept.contains(stored.endpointID) {
            removed.append((stored.endpointID, try removeWebhookSubscription(endpointID: stored.endpointID, reason: removalReason, now: now)))
        }
        for subscription in subscriptions {
            try setWebhookSubscription(subscription)
        }
        return removed
    }

    /// Deletes the user's credential, refusing to delete the account's last way to sign in: the credential is kept
    /// when it is the user's only one and no Apple identity is linked (a consent-revoked identity counts: signing in
    /// with it again lands in the account). In a transaction, so the check and the delete
    /// are one serial step: two concurrent deletions of an account's two passkeys, on one node or two, leave one.
    /// - Returns: `.deleted`; `.notFound` when that user has no credential with this ID (including when it belongs
    ///   to another user); `.lastCredential`, changing nothing.
    public func deleteCredentialUnlessLast(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion {
        let credentials = try credentials(userID: userID)
        guard credentials.contains(where: { $0.id == id }) else { return .notFound }
        if credentials.count == 1, try appleIdentities(userID: userID).isEmpty { return .lastCredential }
        return try deleteCredential(id: id, userID: userID) ? .deleted : .notFound
    }
}
