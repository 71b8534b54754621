import Foundation
import Storage
import Synchronization

/// A store that fails on purpose: a wrapper of another store whose transactions throw `storage.unavailable` at the
/// next `failures` writes of an account row (a user, a session, an Apple identity), as a disk or a database that goes
/// away between two statements would. Everything else goes to the wrapped store.
final class FailingStore: PasskeyStore {
    let inner: any PasskeyStore
    /// How many of the next account-row writes fail.
    let failures = Mutex(0)
    /// How many schema versions `status` reports the database ahead of this build (another node migrated it).
    let schemaAhead = Mutex(0)

    init(_ inner: any PasskeyStore) {
        self.inner = inner
    }

    func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try inner.transaction { transaction throws(StorageError) in try body(FailingTransaction(inner: transaction, store: self)) }
    }

    /// Whether the next account-row write fails (and counts it).
    func takeFailure() -> Bool {
        failures.withLock { count in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? { try inner.user(id: id) }
    func status(now: Date) throws(StorageError) -> StoreStatus {
        var status = try inner.status(now: now)
        status.schemaVersion += schemaAhead.withLock { $0 }
        return status
    }
    /// What `probeWrite` throws, when set (a full disk, say).
    let writeFailure = Mutex<StorageError?>(nil)
    /// How many times `probeWrite` was called.
    let writeProbes = Mutex(0)
    func probeWrite() throws(StorageError) {
        writeProbes.withLock { $0 += 1 }
        if let failure = writeFailure.withLock({ $0 }) { throw failure }
        try inner.probeWrite()
    }
    func user(name: String) throws(StorageError) -> UserRecord? { try inner.user(name: name) }
    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? { try inner.user(nameSkeleton: skeleton) }
    /// How many times `credential(id:)` was called (a sign-in's fresh read).
    let credentialReads = Mutex(0)
    /// Run once after each of the next `credential(id:)` reads (a sign-in's fresh read), before it returns: what
    /// another node or an operator changes between a sign-in's read and its write. Each call runs and drops the first.
    let afterCredentialReads = Mutex<[@Sendable () throws -> Void]>([])
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        credentialReads.withLock { $0 += 1 }
        let read = try inner.credential(id: id)
        let change = afterCredentialReads.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        do {
            try change?()
        } catch {
            throw StorageError(.unavailable, "a test's change after a read failed: \(error)")
        }
        return read
    }
    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] { try inner.credentials(userID: userID) }
    func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) { try inner.insertChallenge(challenge) }
    func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup { try inner.takeChallenge(challenge, now: now) }
    func purgeExpiredChallenges(now: Date) throws(StorageError) -> Int { try inner.purgeExpiredChallenges(now: now) }
    func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? { try inner.session(tokenHash: tokenHash, now: now) }
    func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? { try inner.session(id: id, now: now) }
    func recordSessionUse(tokenHash: [UInt8], at: Date) throws(StorageError) { try inner.recordSessionUse(tokenHash: tokenHash, at: at) }
    func purgeExpiredSessions(now: Date) throws(StorageError) -> Int { try inner.purgeExpiredSessions(now: now) }
    /// How many sign-ins' final writes were sent to the wrapped store.
    let signInWrites = Mutex(0)
    /// When set, the owner a sign-in's write answers, as changed by a concurrent transaction the write waited for (a
    /// PostgreSQL write answers the user's row as locked, which it may have waited for).
    let ownerAtWrite = Mutex<(@Sendable (UserRecord) -> UserRecord)?>(nil)
    func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) throws(StorageError) -> UserRecord {
        signInWrites.withLock { $0 += 1 }
        let owner = try inner.completeAuthentication(update, session: session, events: events, spending: spending, expecting: expecting)
        return ownerAtWrite.withLock { $0 }.map { $0(owner) } ?? owner
    }
    func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError) {
        try inner.completeRegistration(newUser: newUser, credential: credential, session: session, events: events, mail: mail)
    }
    func purgeExpiredNonces(now: Date) throws(StorageError) -> Int { try inner.purgeExpiredNonces(now: now) }
    func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] { try inner.dueRevocations(now: now, limit: limit) }
    func completeRevocation(id: Int64) throws(StorageError) { try inner.completeRevocation(id: id) }
    func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) { try inner.rescheduleRevocation(id: id, notBefore: notBefore) }
    func events(after id: Int64, limit: Int) throws(StorageError) -> [EventRecord] { try inner.events(after: id, limit: limit) }
    func claimWebhookDeliveries(
        endpointID: String,
        owner: String,
        now: Date,
        leaseUntil: Date,
        limit: Int
    ) throws(StorageError)
        -> [ClaimedWebhookDelivery]
    {
        try inner.claimWebhookDeliveries(endpointID: endpointID, owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }
    func recordWebhookOutcomes(_ outcomes: [(deliveryID: Int64, outcome: WebhookDeliveryOutcome)], owner: String, now: Date) throws(StorageError) {
        try inner.recordWebhookOutcomes(outcomes, owner: owner, now: now)
    }
    func repairWebhookChains(queuedSince: Date, now: Date) throws(StorageError) -> Int {
        try inner.repairWebhookChains(queuedSince: queuedSince, now: now)
    }
    func webhookDeliveries(status: WebhookDeliveryStatus?, after id: Int64, limit: Int) throws(StorageError) -> [WebhookDeliveryRecord] {
        try inner.webhookDeliveries(status: status, after: id, limit: limit)
    }
    func webhookDeliveryCounts() throws(StorageError) -> [WebhookDeliveryCount] { try inner.webhookDeliveryCounts() }
    func purgeEvents(occurredBefore cutoff: Date) throws(StorageError) -> Int { try inner.purgeEvents(occurredBefore: cutoff) }
    func publicEventIDs(of ids: [Int64]) throws(StorageError) -> [Int64: String] { try inner.publicEventIDs(of: ids) }
    func claimMail(owner: String, now: Date, leaseUntil: Date, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try inner.claimMail(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }
    func recordMailOutcome(id: Int64, _ outcome: MailOutcome, owner: String, now: Date) throws(StorageError) {
        try inner.recordMailOutcome(id: id, outcome, owner: owner, now: now)
    }
    func mailOutbox(status: MailOutboxStatus?, after id: Int64, limit: Int) throws(StorageError) -> [MailOutboxRecord] {
        try inner.mailOutbox(status: status, after: id, limit: limit)
    }
    func mailOutboxCounts() throws(StorageError) -> [MailOutboxStatus: Int] { try inner.mailOutboxCounts() }
    func purgeMail(before: Date) throws(StorageError) -> Int { try inner.purgeMail(before: before) }
    func mailSuppressions(after key: String, limit: Int) throws(StorageError) -> [MailSuppression] {
        try inner.mailSuppressions(after: key, limit: limit)
    }
}

/// The transaction of a `FailingStore`: the wrapped one, with the failures.
private struct FailingTransaction: StoreTransaction {
    let inner: any StoreTransaction
    let store: FailingStore

    private func fail(_ operation: String) throws(StorageError) {
        if store.takeFailure() { throw StorageError(.unavailable, "\(operation) failed on purpose") }
    }

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        return try inner.user(id: id)
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        return try inner.user(name: name)
    }

    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        return try inner.user(nameSkeleton: skeleton)
    }

    func user(externalID: String) throws(StorageError) -> UserRecord? {
        return try inner.user(externalID: externalID)
    }

    func passwordHash(userID: [UInt8]) throws(StorageError) -> PasswordHashRecord? {
        return try inner.passwordHash(userID: userID)
    }

    func setPasswordHash(_ record: PasswordHashRecord) throws(StorageError) {
        try fail("setPasswordHash")
        try inner.setPasswordHash(record)
    }

    func deletePasswordHash(userID: [UInt8]) throws(StorageError) -> Bool {
        try fail("deletePasswordHash")
        return try inner.deletePasswordHash(userID: userID)
    }

    func retirePasswordHashes(passkeyStoredBefore cutoff: Date, limit: Int) throws(StorageError) -> Int {
        try fail("retirePasswordHashes")
        return try inner.retirePasswordHashes(passkeyStoredBefore: cutoff, limit: limit)
    }

    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord] {
        return try inner.users(verifiedEmail: email)
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try fail("insertUser")
        try inner.insertUser(user)
    }

    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool {
        try fail("updateUser")
        return try inner.updateUser(user)
    }

    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        return try inner.deleteUser(id: id)
    }

    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        return try inner.credential(id: id)
    }

    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        return try inner.credentials(userID: userID)
    }

    func insertCredential(_ credential: CredentialRecord) throws(StorageError) {
        try inner.insertCredential(credential)
    }

    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError) {
        try inner.recordAuthentication(update)
    }

    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        return try inner.renameCredential(id: id, userID: userID, name: name)
    }

    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        return try inner.moveCredentials(from: userID, to: targetUserID)
    }

    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool {
        return try inner.deleteCredential(id: id, userID: userID)
    }

    func insertSession(_ session: SessionRecord) throws(StorageError) {
        try fail("insertSession")
        try inner.insertSession(session)
    }

    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        return try inner.sessions(userID: userID, now: now)
    }

    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> [SessionRecord] {
        return try inner.deleteSession(tokenHash: tokenHash)
    }

    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> [SessionRecord] {
        return try inner.deleteSession(id: id, userID: userID)
    }

    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord] {
        return try inner.deleteSessions(userID: userID, except: keptID)
    }

    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord] {
        return try inner.deleteSessions(appleSubject: appleSubject)
    }

    func deleteSessions(federatedIssuer: String, subject: String) throws(StorageError) -> [SessionRecord] {
        return try inner.deleteSessions(federatedIssuer: federatedIssuer, subject: subject)
    }

    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int {
        return try inner.moveSessions(appleSubject: appleSubject, to: newSubject)
    }

    func federatedIdentity(issuer: String, subject: String) throws(StorageError) -> FederatedIdentityRecord? {
        try inner.federatedIdentity(issuer: issuer, subject: subject)
    }

    func federatedIdentities(userID: [UInt8]) throws(StorageError) -> [FederatedIdentityRecord] {
        try inner.federatedIdentities(userID: userID)
    }

    func insertFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) {
        try fail("insertFederatedIdentity")
        try inner.insertFederatedIdentity(identity)
    }

    func updateFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) -> Bool {
        try fail("updateFederatedIdentity")
        return try inner.updateFederatedIdentity(identity)
    }

    func deleteFederatedIdentity(issuer: String, subject: String) throws(StorageError) -> Bool {
        try fail("deleteFederatedIdentity")
        return try inner.deleteFederatedIdentity(issuer: issuer, subject: subject)
    }

    func moveFederatedIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try fail("moveFederatedIdentities")
        return try inner.moveFederatedIdentities(from: userID, to: targetUserID)
    }

    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        return try inner.appleIdentity(subject: subject)
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        return try inner.appleIdentities(userID: userID)
    }

    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord? {
        return try inner.appleIdentity(transferSubject: transferSubject)
    }

    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord] {
        return try inner.appleIdentities(after: subject, limit: limit)
    }

    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try fail("insertAppleIdentity")
        try inner.insertAppleIdentity(identity)
    }

    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        return try inner.deleteAppleIdentity(subject: subject)
    }

    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool {
        try fail("updateAppleIdentity")
        return try inner.updateAppleIdentity(identity, subject: subject)
    }

    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        return try inner.moveAppleIdentities(from: userID, to: targetUserID)
    }

    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool {
        return try inner.setAppleRefreshToken(subject: subject, clientID: clientID, encryptedToken: encryptedToken)
    }

    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        return try inner.appleRefreshTokens(subject: subject)
    }

    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        return try inner.deleteAppleRefreshTokens(subject: subject)
    }

    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError) {
        try inner.insertLinkDecline(decline)
    }

    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool {
        return try inner.isLinkDeclined(decline)
    }

    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        return try inner.rememberNonce(hash, until: until, now: now)
    }

    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date? {
        return try inner.appleNotificationWatermark(subject: subject, now: now)
    }

    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError) {
        try inner.raiseAppleNotificationWatermark(subject: subject, to: eventAt, until: until, now: now)
    }

    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        return try inner.enqueueRevocation(token: encryptedToken, clientID: clientID, notBefore: notBefore)
    }

    func signingKeys() throws(StorageError) -> [SigningKeyRecord] {
        return try inner.signingKeys()
    }

    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError) {
        try inner.insertSigningKey(key)
    }

    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool {
        return try inner.retireSigningKey(id: id, retiresAt: retiresAt, expiresAt: expiresAt)
    }

    func deleteSigningKey(id: String) throws(StorageError) -> Bool {
        return try inner.deleteSigningKey(id: id)
    }

    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        return try inner.appendEvent(event)
    }

    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription] {
        return try inner.webhookSubscriptions()
    }

    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError) {
        try inner.setWebhookSubscription(subscription)
    }

    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int {
        return try inner.removeWebhookSubscription(endpointID: endpointID, reason: reason, now: now)
    }

    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord? {
        return try inner.webhookDelivery(id: id)
    }

    func enqueueMail(_ mail: NewMail) throws(StorageError) -> Int64 { try inner.enqueueMail(mail) }
    func mail(messageID: String) throws(StorageError) -> MailOutboxRecord? { try inner.mail(messageID: messageID) }
    func latestSentMail(recipient: String) throws(StorageError) -> MailOutboxRecord? { try inner.latestSentMail(recipient: recipient) }
    func recordMailBounce(id: Int64, _ bounce: MailBounce) throws(StorageError) -> Bool { try inner.recordMailBounce(id: id, bounce) }
    func suppressMail(_ suppression: MailSuppression) throws(StorageError) -> Bool { try inner.suppressMail(suppression) }
    func mailSuppression(address: String) throws(StorageError) -> MailSuppression? { try inner.mailSuppression(address: address) }
    func deleteMailSuppression(address: String) throws(StorageError) -> MailSuppression? { try inner.deleteMailSuppression(address: address) }
    func replaceEmailToken(_ token: EmailTokenRecord) throws(StorageError) {
        try fail("replaceEmailToken")
        try inner.replaceEmailToken(token)
    }
    func emailToken(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try inner.emailToken(userID: userID, purpose: purpose)
    }
    func deleteEmailToken(hash: [UInt8]) throws(StorageError) -> EmailTokenRecord? { try inner.deleteEmailToken(hash: hash) }
    func countEmailCodeAttempt(userID: [UInt8], purpose: EmailTokenRecord.Purpose) throws(StorageError) -> EmailTokenRecord? {
        try inner.countEmailCodeAttempt(userID: userID, purpose: purpose)
    }
    func purgeExpiredEmailTokens(now: Date) throws(StorageError) -> Int { try inner.purgeExpiredEmailTokens(now: now) }
    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool {
        return try inner.retryWebhookDelivery(id: id, now: now)
    }

    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord] {
        return try inner.users(namePrefix: prefix, after: after, limit: limit)
    }

    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord] {
        return try inner.users(email: email, limit: limit)
    }

    func insertEnrollmentToken(_ token: EnrollmentTokenRecord) throws(StorageError) {
        try fail("insertEnrollmentToken")
        try inner.insertEnrollmentToken(token)
    }

    func enrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        return try inner.enrollmentToken(hash: hash)
    }

    func deleteEnrollmentToken(hash: [UInt8]) throws(StorageError) -> EnrollmentTokenRecord? {
        return try inner.deleteEnrollmentToken(hash: hash)
    }

    func purgeExpiredEnrollmentTokens(now: Date) throws(StorageError) -> Int {
        return try inner.purgeExpiredEnrollmentTokens(now: now)
    }

    func replaceRecoveryCodes(userID: [UInt8], hashes: [[UInt8]], createdAt: Date) throws(StorageError) {
        try fail("replaceRecoveryCodes")
        try inner.replaceRecoveryCodes(userID: userID, hashes: hashes, createdAt: createdAt)
    }

    func deleteRecoveryCode(userID: [UInt8], hash: [UInt8]) throws(StorageError) -> Bool {
        return try inner.deleteRecoveryCode(userID: userID, hash: hash)
    }

    func recoveryCodeCount(userID: [UInt8]) throws(StorageError) -> Int {
        return try inner.recoveryCodeCount(userID: userID)
    }

    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError) {
        try fail("insertAuthorizationCode")
        try inner.insertAuthorizationCode(code)
    }

    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord? {
        return try inner.useAuthorizationCode(hash: hash, now: now)
    }

    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError) {
        try fail("insertOAuthGrant")
        try inner.insertOAuthGrant(grant)
    }

    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord? {
        return try inner.oauthGrant(id: id)
    }

    func oauthGrants(userID: [UInt8], clientID: String) throws(StorageError) -> [OAuthGrantRecord] {
        return try inner.oauthGrants(userID: userID, clientID: clientID)
    }

    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool {
        return try inner.deleteOAuthGrant(id: id)
    }

    func deleteOAuthGrants(userID: [UInt8]) throws(StorageError) -> Int {
        return try inner.deleteOAuthGrants(userID: userID)
    }

    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError) {
        try fail("insertRefreshToken")
        try inner.insertRefreshToken(token)
    }

    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord? {
        return try inner.refreshToken(hash: hash)
    }

    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord? {
        return try inner.useRefreshToken(hash: hash, now: now)
    }

    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int {
        return try inner.purgeExpiredOAuthRecords(now: now)
    }
}
