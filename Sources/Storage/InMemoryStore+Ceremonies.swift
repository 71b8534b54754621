import Foundation

extension InMemoryStore {
    public func completeAuthentication(_ update: AuthenticationUpdate, session: SessionRecord, events: [NewEvent]) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        try transaction { transaction throws(StorageError) in
            guard let credential = try transaction.credential(id: update.credentialID), credential.userID == session.userID else {
                try CounterUpdate.credentialMissing.check()
                return
            }
            // §7.2 step 23 against the counter stored now.
            guard update.signCount == 0 && credential.signCount == 0 || update.signCount > credential.signCount else {
                try CounterUpdate.counterNotIncreased.check()
                return
            }
            try transaction.recordAuthentication(update)
            try transaction.insertSession(session)
            try transaction.appendEvents(events)
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
            try transaction.insertRegistration(newUser: newUser, credential: credential, session: session, events: events)
        }
    }
}
