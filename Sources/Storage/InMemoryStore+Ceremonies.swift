import Foundation

extension InMemoryStore {
    public func completeAuthentication(
        _ update: AuthenticationUpdate,
        session: SessionRecord,
        events: [NewEvent],
        spending: ChallengeRecord?,
        expecting: SignInExpectation
    ) throws(StorageError) -> UserRecord {
        try Self.checkBounds(session: session, events: events)
        // A refused counter, owner or credential commits the spent challenge alone: the outcome is thrown after.
        let (outcome, owner) = try inMemoryTransaction { transaction throws(StorageError) -> (CounterUpdate, UserRecord?) in
            if let spending {
                guard transaction.state.challenges[spending.challenge] == nil else { return (.challengeSpent, nil) }
                transaction.state.challenges[spending.challenge] = spending
            }
            guard let credential = try transaction.credential(id: update.credentialID), credential.userID == session.userID,
                expecting.holds(for: credential)
            else { return (.credentialChanged, nil) }
            let owner = try transaction.user(id: session.userID)
            guard owner?.disabled != true else { return (.userDisabled, nil) }
            // §7.2 step 23 against the counter stored now.
            guard update.signCount == 0 && credential.signCount == 0 || update.signCount > credential.signCount else {
                return (.counterNotIncreased, nil)
            }
            try transaction.recordAuthentication(update)
            try transaction.insertSession(session)
            try transaction.appendEvents(events)
            return (.recorded, owner)
        }
        try outcome.check()
        guard let owner else { throw StorageError(.notFound, "the session's user does not exist") }
        return owner
    }

    public func completeRegistration(
        newUser: UserRecord?,
        credential: CredentialRecord,
        session: SessionRecord,
        events: [NewEvent],
        mail: [NewMail]
    ) throws(StorageError) {
        try Self.checkRegistration(newUser: newUser, credential: credential, session: session, events: events)
        try transaction { transaction throws(StorageError) in
            try transaction.insertRegistration(newUser: newUser, credential: credential, session: session, events: events)
            for message in mail { _ = try transaction.enqueueMail(message) }
        }
    }
}
