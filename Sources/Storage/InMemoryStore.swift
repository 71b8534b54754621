import Foundation
import Synchronization

/// A `PasskeyStore` kept in process memory, for tests and development. Same contract as the SQL drivers; every call
/// runs under one `Mutex`, so each call is atomic, and a transaction runs under it on a copy of the state, committed
/// by assignment. Nothing survives the process.
public final class InMemoryStore: PasskeyStore {
    struct State {
        var users: [[UInt8]: UserRecord] = [:]
        var credentials: [[UInt8]: CredentialRecord] = [:]
        var challenges: [[UInt8]: ChallengeRecord] = [:]
        var sessions: [[UInt8]: SessionRecord] = [:]

        /// Whether `session` signs anyone in: unexpired, its user enabled, and its parent (a hand-off's) stored and
        /// unexpired.
        func isLive(_ session: SessionRecord, now: Date) -> Bool {
            guard now < session.expiresAt, users[session.userID]?.disabled == false else { return false }
            guard let parentID = session.parentID else { return true }
            return sessions.values.contains { $0.id == parentID && now < $0.expiresAt }
        }
        var appleIdentities: [String: AppleIdentityRecord] = [:]
        /// By subject, then client ID.
        var appleRefreshTokens: [String: [String: [UInt8]]] = [:]
        var linkDeclines: Set<LinkDecline> = []
        var federatedIdentities: [FederatedIdentityKey: FederatedIdentityRecord] = [:]
        var appleNonces: [[UInt8]: Date] = [:]
        /// By subject: the newest applied event time and until when it is kept.
        var appleNotificationWatermarks: [String: (eventAt: Date, until: Date)] = [:]
        var appleRevocations: [Int64: AppleRevocationRecord] = [:]
        var lastRevocationID: Int64 = 0
        /// In `id` order: ids only grow.
        var events: [EventRecord] = []
        var lastEventID: Int64 = 0
        var webhookSubscriptions: [String: WebhookSubscription] = [:]
        var webhookDeliveries: [Int64: WebhookDeliveryRecord] = [:]
        var lastWebhookDeliveryID: Int64 = 0
        var enrollmentTokens: [[UInt8]: EnrollmentTokenRecord] = [:]
        /// The hashes of each user's unused recovery codes.
        var recoveryCodes: [[UInt8]: Set<[UInt8]>] = [:]
        var passwordHashes: [[UInt8]: PasswordHashRecord] = [:]
        var signingKeys: [String: SigningKeyRecord] = [:]
        var authorizationCodes: [[UInt8]: AuthorizationCodeRecord] = [:]
        var oauthGrants: [[UInt8]: OAuthGrantRecord] = [:]
        var refreshTokens: [[UInt8]: RefreshTokenRecord] = [:]
        var mailOutbox: [Int64: MailOutboxRecord] = [:]
        var lastMailID: Int64 = 0
        /// By `MailSuppression.key`.
        var mailSuppressions: [String: MailSuppression] = [:]
        var emailTokens: [[UInt8]: EmailTokenRecord] = [:]
    }

    let state = Mutex(State())

    /// Creates an empty store.
    public init() {}

    public func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try inMemoryTransaction(body)
    }

    /// `transaction` with the driver's own transaction type, whose state a fast path may change directly.
    func inMemoryTransaction<Result: Sendable>(_ body: (InMemoryTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try state.withLock { state throws(StorageError) -> Result in
            let transaction = InMemoryTransaction(state: state)
            defer { transaction.isOpen = false }
            let result = try body(transaction)
            if let failure = transaction.failure { throw failure }
            state = transaction.state
            return result
        }
    }

    /// Runs `body` on the state itself, under the lock: for single calls, each of which checks before it changes
    /// anything (no copy is made).
    func withRecords<Result: Sendable>(_ body: (InMemoryTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try state.withLock { state throws(StorageError) -> Result in
            let records = InMemoryTransaction(state: State())
            swap(&records.state, &state)
            defer {
                swap(&records.state, &state)
                records.isOpen = false
            }
            return try body(records)
        }
    }

    public func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(id: id) }
    }

    public func user(name: String) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(name: name) }
    }

    public func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        try withRecords { records throws(StorageError) in try records.user(nameSkeleton: skeleton) }
    }

    public func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try withRecords { records throws(StorageError) in try records.credential(id: id) }
    }

    public func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try withRecords { records throws(StorageError) in try records.credentials(userID: userID) }
    }

    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        state.withLock { state in
            guard let session = state.sessions[tokenHash], state.isLive(session, now: now) else { return nil }
            return session
        }
    }

    public func session(id: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        state.withLock { state in
            state.sessions.values.first { $0.id == id && state.isLive($0, now: now) }
        }
    }

    public func recordSessionUse(tokenHash: [UInt8], at: Date) throws(StorageError) {
        state.withLock { state in
            guard state.sessions[tokenHash] != nil else { return }
            state.sessions[tokenHash]?.lastUsedAt = at
        }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let before = state.sessions.count
            state.sessions = state.sessions.filter { now < $0.value.expiresAt }
            return before - state.sessions.count
        }
    }

    public func purgeExpiredNonces(now: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let before = state.appleNonces.count + state.appleNotificationWatermarks.count
            state.appleNonces = state.appleNonces.filter { now < $0.value }
            state.appleNotificationWatermarks = state.appleNotificationWatermarks.filter { now < $0.value.until }
            return before - state.appleNonces.count - state.appleNotificationWatermarks.count
        }
    }

    public func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let userID = challenge.userID, state.users[userID] == nil {
                throw StorageError(.notFound, "the user does not exist")
            }
            guard state.challenges[challenge.challenge] == nil else {
                throw StorageError(.duplicateKey, "a challenge with these bytes already exists")
            }
            state.challenges[challenge.challenge] = challenge
        }
    }

    public func takeChallenge(_ challenge: [UInt8], now: Date) throws(StorageError) -> ChallengeLookup {
        state.withLock { state in
            guard let record = state.challenges.removeValue(forKey: challenge) else { return .unknown }
            return now < record.expiresAt ? .valid(record) : .expired
        }
    }

    public func purgeExpiredChallenges(now: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let before = state.challenges.count
            state.challenges = state.challenges.filter { now < $0.value.expiresAt }
            return before - state.challenges.count
        }
    }

    public func dueRevocations(now: Date, limit: Int) throws(StorageError) -> [AppleRevocationRecord] {
        state.withLock { state in
            Array(
                state.appleRevocations.values
                    .filter { $0.notBefore <= now }
                    .sorted { ($0.notBefore, $0.id) < ($1.notBefore, $1.id) }
                    .prefix(max(0, limit))
            )
        }
    }

    public func completeRevocation(id: Int64) throws(StorageError) {
        _ = state.withLock { $0.appleRevocations.removeValue(forKey: id) }
    }

    public func rescheduleRevocation(id: Int64, notBefore: Date) throws(StorageError) {
        state.withLock { state in
            guard state.appleRevocations[id] != nil else { return }
            state.appleRevocations[id]?.notBefore = notBefore
            state.appleRevocations[id]?.attempts += 1
        }
    }

    public func events(after id: Int64, limit: Int) throws(StorageError) -> [EventRecord] {
        state.withLock { state in Array(state.events.filter { $0.id > id }.prefix(max(0, limit))) }
    }

    public func publicEventIDs(of ids: [Int64]) throws(StorageError) -> [Int64: String] {
        try Self.validatePublicIDLookup(ids)
        let wanted = Set(ids)
        return state.withLock { state in
            Dictionary(state.events.filter { wanted.contains($0.id) }.map { ($0.id, $0.publicID) }) { first, _ in first }
        }
    }

    public func purgeEvents(occurredBefore cutoff: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let kept = Set(
                state.webhookDeliveries.values.filter { $0.status == .pending || ($0.status == .dead && $0.updatedAt >= cutoff) }.map(\.eventID)
            )
            let purged = Set(state.events.filter { $0.occurredAt < cutoff && !kept.contains($0.id) }.map(\.id))
            state.events.removeAll { purged.contains($0.id) }
            state.webhookDeliveries = state.webhookDeliveries.filter { !purged.contains($0.value.eventID) }
            return purged.count
        }
    }
}
