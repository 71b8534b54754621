import Foundation
import Storage

extension SQLiteStore {
    public func completeAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        backupEligibilityChanged: Bool,
        session: SessionRecord
    ) throws(StorageError) {
        let outcome = try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> CounterUpdate in
                // §7.2 step 23 against the counter stored now: the update happens only when the counter increased.
                let updated = try connection.statement(
                    """
                    UPDATE credentials SET sign_count = ?3, backup_eligible = ?4, backup_state = ?5, last_used_at = ?6,
                        backup_eligibility_changed = (backup_eligibility_changed OR ?7)
                    WHERE id = ?1 AND user_id = ?2 AND (sign_count < ?3 OR (?3 = 0 AND sign_count = 0))
                    """
                ).run([
                    .blob(credentialID), .blob(session.userID), .integer(Int64(signCount)), .bool(backupEligible),
                    .bool(backupState), .date(usedAt), .bool(backupEligibilityChanged),
                ])
                guard updated == 1 else {
                    let found = try connection.statement("SELECT 1 FROM credentials WHERE id = ?1 AND user_id = ?2")
                        .run([.blob(credentialID), .blob(session.userID)]) { _ throws(SQLiteError) in () }
                    return found.isEmpty ? .credentialMissing : .counterNotIncreased
                }
                try SQLiteStore.insert(session, into: connection)
                return .recorded
            }
        }
        try outcome.check()
    }

    public func completeRegistration(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError) {
        try Self.checkRegistrationOwnership(newUser: newUser, credential: credential, session: session)
        let transports = try credential.transportsJSON()
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) in
                if let newUser {
                    try SQLiteStore.insert(newUser, into: connection)
                }
                try SQLiteStore.insert(credential, transports: transports, into: connection)
                try SQLiteStore.insert(session, into: connection)
            }
        }
    }
}
