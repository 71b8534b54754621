import Foundation

extension InMemoryStore {
    public func completeAuthentication(_ update: AuthenticationUpdate, session: SessionRecord, events: [NewEvent]) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        try transaction { transaction throws(StorageError) in
            guard let credential = try transaction.credential(id: update.credentialID), credential.userID == session.userID else {
                throw StorageError(.notFound, "the session's user has no credential with this ID")
            }
            // §7.2 step 23 against the counter stored now.
            guard update.signCount == 0 && credential.signCount == 0 || update.signCount > credential.signCount else {
                try CounterUpdate.counterNotIncreased.check()
                return
            }
            try transaction.recordAuthentication(update)
            try transaction.insertSession(session)
            for event in events {
                try transaction.appendEvent(event)
            }
        }
    }

    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent]
    ) throws(StorageError) {
        try Self.checkRegistration(newUser: newUser, credential: credential, session: session, events: events)
        try transaction { transaction throws(StorageError) in
            if let newUser {
                try transaction.insertUser(newUser)
            }
            try transaction.insertCredential(credential)
            try transaction.insertSession(session)
            for event in events {
                try transaction.appendEvent(event)
            }
        }
    }
}
