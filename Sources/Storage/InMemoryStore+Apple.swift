import Foundation

extension InMemoryStore {
    public func createUser(_ user: UserRecord, appleIdentity identity: AppleIdentityRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard identity.userID == user.id else { throw .notFound("the Apple identity must belong to the new user") }
            guard state.users[user.id] == nil else { throw .duplicateKey("a user with this ID already exists") }
            guard !state.users.values.contains(where: { $0.name == user.name }) else { throw .usernameTaken() }
            guard state.appleIdentities[identity.subject] == nil else { throw .appleIdentityTaken() }
            state.users[user.id] = user
            state.appleIdentities[identity.subject] = identity
        }
    }

    public func linkAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard state.appleIdentities[identity.subject] == nil else { throw .appleIdentityTaken() }
            guard state.users[identity.userID] != nil else { throw .notFound("the user does not exist") }
            state.appleIdentities[identity.subject] = identity
        }
    }

    public func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        state.withLock { $0.appleIdentities[subject] }
    }

    public func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        state.withLock { state in
            state.appleIdentities.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return Array(left.subject.utf8).lexicographicallyPrecedes(Array(right.subject.utf8))
                }
        }
    }

    public func unlinkAppleIdentity(subject: String) throws(StorageError) -> Bool {
        state.withLock { $0.appleIdentities.removeValue(forKey: subject) != nil }
    }

    public func updateAppleEmailState(subject: String, emailDisabled: Bool) throws(StorageError) -> Bool {
        state.withLock { state in
            guard state.appleIdentities[subject] != nil else { return false }
            state.appleIdentities[subject]?.emailDisabled = emailDisabled
            return true
        }
    }

    public func setAppleRefreshToken(subject: String, encryptedToken: [UInt8]?, clientID: String?) throws(StorageError) -> Bool {
        state.withLock { state in
            guard state.appleIdentities[subject] != nil else { return false }
            state.appleIdentities[subject]?.encryptedRefreshToken = encryptedToken
            state.appleIdentities[subject]?.refreshTokenClientID = clientID
            return true
        }
    }

    public func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        state.withLock { state in
            state.appleNonces = state.appleNonces.filter { now < $0.value }
            guard state.appleNonces[hash] == nil else { return false }
            state.appleNonces[hash] = until
            return true
        }
    }

    public func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        state.withLock { state in
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
}
