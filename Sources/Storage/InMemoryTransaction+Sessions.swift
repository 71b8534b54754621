import Foundation

extension InMemoryTransaction {
    func insertSession(_ session: SessionRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try session.validate()
            guard state.sessions[session.tokenHash] == nil else {
                throw StorageError(.duplicateKey, "a session with this token hash already exists")
            }
            guard !state.sessions.values.contains(where: { $0.id == session.id }) else {
                throw StorageError(.duplicateKey, "a session with this ID already exists")
            }
            guard let user = state.users[session.userID] else { throw StorageError(.notFound, "the user does not exist") }
            guard !user.disabled else { throw StorageError(.userDisabled, "the user is disabled") }
            state.sessions[session.tokenHash] = session
        }
    }

    func sessions(userID: [UInt8], now: Date) throws(StorageError) -> [SessionRecord] {
        try run { state in Self.ordered(state.sessions.values.filter { $0.userID == userID && now < $0.expiresAt }) }
    }

    func deleteSession(tokenHash: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.tokenHash == tokenHash }
    }

    func deleteSession(id: [UInt8], userID: [UInt8]) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.id == id && $0.userID == userID }
    }

    func deleteSessions(userID: [UInt8], except keptID: [UInt8]?) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.userID == userID && $0.id != keptID }
    }

    func deleteSessions(appleSubject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.appleSubject == appleSubject }
    }

    func deleteSessions(federatedIssuer: String, subject: String) throws(StorageError) -> [SessionRecord] {
        try deleteSessions { $0.federatedIssuer == federatedIssuer && $0.federatedSubject == subject }
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

    /// Deletes the sessions that match, then those handed off from a deleted one, until none is left.
    private func deleteSessions(where matches: (SessionRecord) -> Bool) throws(StorageError) -> [SessionRecord] {
        try run { state in
            var deleted: [SessionRecord] = []
            var round = state.sessions.values.filter(matches)
            while !round.isEmpty {
                for session in round {
                    state.sessions[session.tokenHash] = nil
                }
                deleted += round
                let parentIDs = Set(round.map(\.id))
                round = state.sessions.values.filter { $0.parentID.map(parentIDs.contains) ?? false }
            }
            return Self.ordered(deleted)
        }
    }

    private static func ordered(_ sessions: [SessionRecord]) -> [SessionRecord] {
        sessions.sorted(by: SessionRecord.precedes)
    }
}
