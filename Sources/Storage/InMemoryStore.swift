import Foundation
import Synchronization

/// A `PasskeyStore` kept in process memory, for tests and development. Same contract as the SQL drivers;
/// every call runs under one `Mutex`, so each call is atomic. Nothing survives the process.
public final class InMemoryStore: PasskeyStore {
    struct State {
        var users: [[UInt8]: UserRecord] = [:]
        var credentials: [[UInt8]: CredentialRecord] = [:]
        var challenges: [[UInt8]: ChallengeRecord] = [:]
        var sessions: [[UInt8]: SessionRecord] = [:]
        var appleIdentities: [String: AppleIdentityRecord] = [:]
        var appleNonces: [[UInt8]: Date] = [:]
        var appleRevocations: [Int64: AppleRevocationRecord] = [:]
        var lastRevocationID: Int64 = 0
    }

    let state = Mutex(State())

    /// Creates an empty store.
    public init() {}

    public func createUser(_ user: UserRecord, firstCredential: CredentialRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard firstCredential.userID == user.id else {
                throw .notFound("the first credential must belong to the new user")
            }
            guard state.users[user.id] == nil else { throw .duplicateKey("a user with this ID already exists") }
            guard !state.users.values.contains(where: { $0.name == user.name }) else { throw .usernameTaken() }
            guard state.credentials[firstCredential.id] == nil else { throw .credentialExists() }
            state.users[user.id] = user
            state.credentials[firstCredential.id] = firstCredential
        }
    }

    public func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        state.withLock { $0.users[id] }
    }

    public func user(name: String) throws(StorageError) -> UserRecord? {
        state.withLock { state in state.users.values.first { $0.name == name } }
    }

    public func deleteUser(id: [UInt8]) throws(StorageError) {
        state.withLock { state in
            state.users[id] = nil
            state.credentials = state.credentials.filter { $0.value.userID != id }
            state.sessions = state.sessions.filter { $0.value.userID != id }
            state.challenges = state.challenges.filter { $0.value.userID != id }
            state.appleIdentities = state.appleIdentities.filter { $0.value.userID != id }
        }
    }

    public func addCredential(_ credential: CredentialRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard state.credentials[credential.id] == nil else { throw .credentialExists() }
            guard state.users[credential.userID] != nil else { throw .notFound("the user does not exist") }
            state.credentials[credential.id] = credential
        }
    }

    public func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        state.withLock { $0.credentials[id] }
    }

    public func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        state.withLock { state in
            state.credentials.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return left.id.lexicographicallyPrecedes(right.id)
                }
        }
    }

    public func recordAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        cloneWarning: Bool,
        backupEligibilityChanged: Bool
    ) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard var credential = state.credentials[credentialID] else {
                throw .notFound("the credential does not exist")
            }
            credential.signCount = max(credential.signCount, signCount)
            credential.backupEligible = backupEligible
            credential.backupState = backupState
            credential.lastUsedAt = usedAt
            credential.cloneWarning = credential.cloneWarning || cloneWarning
            credential.backupEligibilityChanged = credential.backupEligibilityChanged || backupEligibilityChanged
            state.credentials[credentialID] = credential
        }
    }

    public func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        state.withLock { state in
            guard state.credentials[id]?.userID == userID else { return false }
            state.credentials[id]?.name = name
            return true
        }
    }

    public func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion {
        state.withLock { state in
            guard state.credentials[id]?.userID == userID else { return .notFound }
            guard
                state.credentials.values.contains(where: { $0.userID == userID && $0.id != id })
                    || state.appleIdentities.values.contains(where: { $0.userID == userID })
            else {
                return .lastCredential
            }
            state.credentials[id] = nil
            return .deleted
        }
    }

    public func insertChallenge(_ challenge: ChallengeRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            if let userID = challenge.userID, state.users[userID] == nil {
                throw .notFound("the user does not exist")
            }
            guard state.challenges[challenge.challenge] == nil else {
                throw .duplicateKey("a challenge with these bytes already exists")
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

    public func createSession(_ session: SessionRecord) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard state.sessions[session.tokenHash] == nil else {
                throw .duplicateKey("a session with this token hash already exists")
            }
            guard state.users[session.userID] != nil else { throw .notFound("the user does not exist") }
            state.sessions[session.tokenHash] = session
        }
    }

    public func session(tokenHash: [UInt8], now: Date) throws(StorageError) -> SessionRecord? {
        state.withLock { state in
            guard let session = state.sessions[tokenHash], now < session.expiresAt else { return nil }
            return session
        }
    }

    public func deleteSession(tokenHash: [UInt8]) throws(StorageError) {
        state.withLock { state in state.sessions[tokenHash] = nil }
    }

    public func deleteSessions(userID: [UInt8]) throws(StorageError) {
        state.withLock { state in state.sessions = state.sessions.filter { $0.value.userID != userID } }
    }

    public func purgeExpiredSessions(now: Date) throws(StorageError) -> Int {
        state.withLock { state in
            let before = state.sessions.count
            state.sessions = state.sessions.filter { now < $0.value.expiresAt }
            return before - state.sessions.count
        }
    }
}
