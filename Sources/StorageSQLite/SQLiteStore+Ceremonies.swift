import Foundation
import Storage

/// Each ceremony's final writes are one `BEGIN IMMEDIATE` transaction: one durable commit.
extension SQLiteStore {
    public func completeAuthentication(_ update: AuthenticationUpdate, session: SessionRecord, events: [NewEvent]) throws(StorageError) {
        try Self.checkBounds(session: session, events: events)
        try withRecords { records throws(StorageError) in
            try records.immediateTransaction { () throws(StorageError) in
                try records.recordSignIn(update, userID: session.userID).check()
                try records.insertSession(session)
                try records.appendEvents(events)
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
        try withRecords { records throws(StorageError) in
            try records.immediateTransaction { () throws(StorageError) in
                try records.insertRegistration(newUser: newUser, credential: credential, session: session, events: events)
            }
        }
    }
}
