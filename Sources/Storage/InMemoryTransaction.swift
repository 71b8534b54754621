import Foundation

/// The record-level operations of `InMemoryStore` on a state it holds: a copy during a transaction, the store's own
/// state (moved in and back) for a single call. Every operation checks before it changes anything.
final class InMemoryTransaction: StoreTransaction {
    var state: InMemoryStore.State
    /// False once the body that was given the transaction has returned.
    var isOpen = true
    /// The first error an operation threw; it dooms the transaction.
    private(set) var failure: StorageError?

    init(state: InMemoryStore.State) {
        self.state = state
    }

    /// Runs one operation on the state, remembering its error.
    func run<Value>(_ operation: (inout InMemoryStore.State) throws(StorageError) -> Value) throws(StorageError) -> Value {
        guard isOpen else { throw StorageError(.unavailable, "the transaction has ended") }
        do {
            return try operation(&state)
        } catch {
            if failure == nil { failure = error }
            throw error
        }
    }

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { $0.users[id] }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { state in
            let key = UserRecord.nameKey(of: name)
            return state.users.values.first { $0.nameKey == key }
        }
    }

    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord] {
        try run { state in
            let wanted = Self.asciiLowercased(email)
            return state.users.values
                .filter { $0.emailVerified && $0.email.map(Self.asciiLowercased) == wanted }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return left.id.lexicographicallyPrecedes(right.id)
                }
        }
    }

    /// ASCII letters lowercased, every other character kept: SQLite's `lower()` and PostgreSQL's under the C collation.
    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try user.validate()
            guard state.users[user.id] == nil else { throw StorageError(.duplicateKey, "a user with this ID already exists") }
            guard !state.users.values.contains(where: { $0.nameKey == user.nameKey }) else {
                throw StorageError(.usernameTaken, "the username is already taken")
            }
            guard !state.users.values.contains(where: { $0.appAccountToken == user.appAccountToken }) else {
                throw StorageError(.duplicateKey, "a user with this app account token already exists")
            }
            state.users[user.id] = user
        }
    }

    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool {
        try run { state throws(StorageError) in
            try user.validate()
            guard let stored = state.users[user.id] else { return false }
            guard !state.users.values.contains(where: { $0.nameKey == user.nameKey && $0.id != user.id }) else {
                throw StorageError(.usernameTaken, "the username is already taken")
            }
            var updated = user
            updated.appAccountToken = stored.appAccountToken
            updated.createdAt = stored.createdAt
            state.users[user.id] = updated
            return true
        }
    }

    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.users.removeValue(forKey: id) != nil else { return false }
            state.credentials = state.credentials.filter { $0.value.userID != id }
            state.sessions = state.sessions.filter { $0.value.userID != id }
            state.challenges = state.challenges.filter { $0.value.userID != id }
            for identity in state.appleIdentities.values where identity.userID == id {
                state.appleRefreshTokens[identity.subject] = nil
            }
            state.appleIdentities = state.appleIdentities.filter { $0.value.userID != id }
            state.linkDeclines = state.linkDeclines.filter { $0.first != id && $0.second != id }
            state.enrollmentTokens = state.enrollmentTokens.filter { $0.value.userID != id }
            state.recoveryCodes[id] = nil
            state.authorizationCodes = state.authorizationCodes.filter { $0.value.userID != id }
            let grants = Set(state.oauthGrants.values.filter { $0.userID == id }.map(\.id))
            state.oauthGrants = state.oauthGrants.filter { !grants.contains($0.key) }
            state.refreshTokens = state.refreshTokens.filter { !grants.contains($0.value.grantID) }
            return true
        }
    }

    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try run { $0.credentials[id] }
    }

    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try run { state in
            state.credentials.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return left.id.lexicographicallyPrecedes(right.id)
                }
        }
    }

    func insertCredential(_ credential: CredentialRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.credentials[credential.id] == nil else {
                throw StorageError(.credentialExists, "a credential with this ID already exists")
            }
            guard state.users[credential.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.credentials[credential.id] = credential
        }
    }

    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError) {
        try run { state throws(StorageError) in
            guard var credential = state.credentials[update.credentialID] else {
                throw StorageError(.notFound, "the credential does not exist")
            }
            credential.signCount = max(credential.signCount, update.signCount)
            credential.backupEligible = update.backupEligible
            credential.backupState = update.backupState
            credential.lastUsedAt = update.usedAt
            credential.cloneWarning = credential.cloneWarning || update.cloneWarning
            credential.backupEligibilityChanged = credential.backupEligibilityChanged || update.backupEligibilityChanged
            state.credentials[update.credentialID] = credential
        }
    }

    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try run { state in
            guard state.credentials[id]?.userID == userID else { return false }
            state.credentials[id]?.name = name
            return true
        }
    }

    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { state throws(StorageError) in
            let moving = state.credentials.values.filter { $0.userID == userID }
            guard !moving.isEmpty else { return 0 }
            guard state.users[targetUserID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            for credential in moving {
                state.credentials[credential.id]?.userID = targetUserID
            }
            return moving.count
        }
    }

    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.credentials[id]?.userID == userID else { return false }
            state.credentials[id] = nil
            return true
        }
    }

    func insertSession(_ session: SessionRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try session.validate()
            guard state.sessions[session.tokenHash] == nil else {
                throw StorageError(.duplicateKey, "a session with this token hash already exists")
            }
            guard !state.sessions.values.contains(where: { $0.id == session.id }) else {
                throw StorageError(.duplicateKey, "a session with this ID already exists")
            }
            guard state.users[session.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.sessions[session.tokenHash] = session
        }
    }

    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        try run { state in Self.ordered(state.sessions.values.filter { $0.userID == userID && now < $0.expiresAt }) }
    }

    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> SessionRecord? {
        try run { $0.sessions.removeValue(forKey: tokenHash) }
    }

    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> SessionRecord? {
        try deleteSessions { $0.id == id && $0.userID == userID }.first
    }

    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.userID == userID && $0.id != keptID }
    }

    func deleteSessions(credentialID: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.credentialID == credentialID }
    }

    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.appleSubject == appleSubject }
    }

    func moveSessions(appleSubject: String, to newSubject: String) throws(StorageError) -> Int {
        try run { state in
            let moving = state.sessions.values.filter { $0.appleSubject == appleSubject }
            for session in moving {
                state.sessions[session.tokenHash]?.appleSubject = newSubject
            }
            return moving.count
        }
    }

    private func deleteSessions(where matches: (SessionRecord) -> Bool) throws(StorageError) -> [SessionRecord] {
        try run { state in
            let deleted = state.sessions.values.filter(matches)
            for session in deleted {
                state.sessions[session.tokenHash] = nil
            }
            return Self.ordered(deleted)
        }
    }

    private static func ordered(_ sessions: [SessionRecord]) -> [SessionRecord] {
        sessions.sorted(by: SessionRecord.precedes)
    }

    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { $0.appleIdentities[subject] }
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { state in
            state.appleIdentities.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return Array(left.subject.utf8).lexicographicallyPrecedes(Array(right.subject.utf8))
                }
        }
    }

    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { state in state.appleIdentities.values.first { $0.transferSubject == transferSubject } }
    }

    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord] {
        try run { state in
            let after = subject.map { Array($0.utf8) }
            let following = state.appleIdentities.values.filter { identity in
                after.map { $0.lexicographicallyPrecedes(Array(identity.subject.utf8)) } ?? true
            }
            return Array(following.sorted { Array($0.subject.utf8).lexicographicallyPrecedes(Array($1.subject.utf8)) }.prefix(max(0, limit)))
        }
    }

    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.appleIdentities[identity.subject] == nil else {
                throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            }
            if let transfer = identity.transferSubject, state.appleIdentities.values.contains(where: { $0.transferSubject == transfer }) {
                throw StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.appleIdentities[identity.subject] = identity
        }
    }

    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { state in
            state.appleRefreshTokens[subject] = nil
            return state.appleIdentities.removeValue(forKey: subject) != nil
        }
    }

    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool {
        try run { state throws(StorageError) in
            guard state.appleIdentities[subject] != nil else { return false }
            if identity.subject != subject, state.appleIdentities[identity.subject] != nil {
                throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            }
            if let transfer = identity.transferSubject,
                state.appleIdentities.values.contains(where: { $0.transferSubject == transfer && $0.subject != subject })
            {
                throw StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.appleIdentities[subject] = nil
            state.appleIdentities[identity.subject] = identity
            if identity.subject != subject {
                state.appleRefreshTokens[identity.subject] = state.appleRefreshTokens.removeValue(forKey: subject)
            }
            return true
        }
    }

    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { state throws(StorageError) in
            let moving = state.appleIdentities.values.filter { $0.userID == userID }
            guard !moving.isEmpty else { return 0 }
            guard state.users[targetUserID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            for identity in moving {
                state.appleIdentities[identity.subject]?.userID = targetUserID
            }
            return moving.count
        }
    }

    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.appleIdentities[subject] != nil else { return false }
            state.appleRefreshTokens[subject, default: [:]][clientID] = encryptedToken
            return true
        }
    }

    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { state in Self.refreshTokens(state.appleRefreshTokens[subject] ?? [:], subject: subject) }
    }

    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { state in Self.refreshTokens(state.appleRefreshTokens.removeValue(forKey: subject) ?? [:], subject: subject) }
    }

    private static func refreshTokens(_ tokens: [String: [UInt8]], subject: String) -> [AppleRefreshTokenRecord] {
        tokens.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { AppleRefreshTokenRecord(subject: subject, clientID: $0.key, encryptedToken: $0.value) }
    }

    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.users[decline.first] != nil, state.users[decline.second] != nil else {
                throw StorageError(.notFound, "the user does not exist")
            }
            state.linkDeclines.insert(decline)
        }
    }

    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool {
        try run { $0.linkDeclines.contains(decline) }
    }

    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try run { state in
            if let remembered = state.appleNonces[hash], now < remembered { return false }
            state.appleNonces[hash] = until
            return true
        }
    }

    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        try run { state in
            state.lastRevocationID += 1
            let id = state.lastRevocationID
            state.appleRevocations[id] = AppleRevocationRecord(
                id: id,
                encryptedToken: encryptedToken,
                clientID: clientID,
                notBefore: notBefore,
                attempts: 0
            )
            return id
        }
    }

    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date? {
        try run { state in
            guard let entry = state.appleNotificationWatermarks[subject], now < entry.until else { return nil }
            return entry.eventAt
        }
    }

    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError) {
        try run { state in
            guard let entry = state.appleNotificationWatermarks[subject], now < entry.until else {
                state.appleNotificationWatermarks[subject] = (eventAt, until)
                return
            }
            state.appleNotificationWatermarks[subject] = (max(entry.eventAt, eventAt), max(entry.until, until))
        }
    }

    func signingKeys() throws(StorageError) -> [SigningKeyRecord] {
        try run { state in state.signingKeys.values.sorted(by: SigningKeyRecord.precedes) }
    }

    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try key.validate()
            guard state.signingKeys[key.id] == nil else { throw StorageError(.duplicateKey, "a signing key with this ID already exists") }
            state.signingKeys[key.id] = key
        }
    }

    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool {
        try run { state in
            guard state.signingKeys[id] != nil else { return false }
            state.signingKeys[id]?.retiresAt = retiresAt
            state.signingKeys[id]?.expiresAt = expiresAt
            return true
        }
    }

    func deleteSigningKey(id: String) throws(StorageError) -> Bool {
        try run { $0.signingKeys.removeValue(forKey: id) != nil }
    }

    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        try run { state throws(StorageError) in
            try event.validate()
            state.lastEventID += 1
            state.events.append(EventRecord(id: state.lastEventID, event))
            state.queueWebhookDeliveries(of: EventRecord(id: state.lastEventID, event))
            return state.lastEventID
        }
    }

    func webhookSubscriptions() throws(StorageError) -> [WebhookSubscription] {
        try run { state in state.webhookSubscriptions.values.sorted { $0.endpointID < $1.endpointID } }
    }

    func setWebhookSubscription(_ subscription: WebhookSubscription) throws(StorageError) {
        try run { state throws(StorageError) in
            try subscription.validate()
            state.webhookSubscriptions[subscription.endpointID] = subscription
        }
    }

    func removeWebhookSubscription(endpointID: String, reason: String, now: Date) throws(StorageError) -> Int {
        try run { state in
            state.webhookSubscriptions[endpointID] = nil
            let abandoned = state.webhookDeliveries.values.filter { $0.endpointID == endpointID && $0.status == .pending }
            for var delivery in abandoned {
                delivery.status = .dead
                delivery.lastError = reason
                delivery.nextAttemptAt = nil
                delivery.leaseOwner = nil
                delivery.leaseUntil = WebhookDeliveryRecord.noLease
                delivery.updatedAt = now
                state.webhookDeliveries[delivery.id] = delivery
            }
            return abandoned.count
        }
    }

    func webhookDelivery(id: Int64) throws(StorageError) -> WebhookDeliveryRecord? {
        try run { $0.webhookDeliveries[id] }
    }

    func retryWebhookDelivery(id: Int64, now: Date) throws(StorageError) -> Bool {
        try run { state in
            guard var delivery = state.webhookDeliveries[id], delivery.status == .dead else { return false }
            delivery.status = .pending
            delivery.nextAttemptAt = now
            delivery.queuedAt = now
            delivery.attempts = 0
            delivery.leaseOwner = nil
            delivery.leaseUntil = WebhookDeliveryRecord.noLease
            delivery.updatedAt = now
            state.webhookDeliveries[id] = delivery
            return true
        }
    }
}
