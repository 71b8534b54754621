import Foundation

extension InMemoryStore {
    public func completeAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        backupEligibilityChanged: Bool,
        session: SessionRecord
    ) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            guard var credential = state.credentials[credentialID], credential.userID == session.userID else {
                throw .notFound("the session's user has no credential with this ID")
            }
            guard signCount == 0 && credential.signCount == 0 || signCount > credential.signCount else {
                throw .signCountNotIncreased()
            }
            guard state.sessions[session.tokenHash] == nil else {
                throw .duplicateKey("a session with this token hash already exists")
            }
            credential.signCount = signCount
            credential.backupEligible = backupEligible
            credential.backupState = backupState
            credential.lastUsedAt = usedAt
            credential.backupEligibilityChanged = credential.backupEligibilityChanged || backupEligibilityChanged
            state.credentials[credentialID] = credential
            state.sessions[session.tokenHash] = session
        }
    }

    public func completeRegistration(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError) {
        try Self.checkRegistrationOwnership(newUser: newUser, credential: credential, session: session)
        try state.withLock { state throws(StorageError) in
            if let newUser {
                guard state.users[newUser.id] == nil else { throw .duplicateKey("a user with this ID already exists") }
                guard !state.users.values.contains(where: { $0.name == newUser.name }) else { throw .usernameTaken() }
                guard state.credentials[credential.id] == nil else { throw .credentialExists() }
            } else {
                guard state.credentials[credential.id] == nil else { throw .credentialExists() }
                guard state.users[credential.userID] != nil else { throw .notFound("the user does not exist") }
            }
            guard state.sessions[session.tokenHash] == nil else {
                throw .duplicateKey("a session with this token hash already exists")
            }
            if let newUser {
                state.users[newUser.id] = newUser
            }
            state.credentials[credential.id] = credential
            state.sessions[session.tokenHash] = session
        }
    }
}
