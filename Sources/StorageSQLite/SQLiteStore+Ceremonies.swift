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
        let recorded = try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> Bool in
                let updated = try connection.statement("""
                    UPDATE credentials SET sign_count = ?3, backup_eligible = ?4, backup_state = ?5, last_used_at = ?6,
                        backup_eligibility_changed = (backup_eligibility_changed OR ?7)
                    WHERE id = ?1 AND user_id = ?2
                    """).run([
                        .blob(credentialID), .blob(session.userID), .integer(Int64(signCount)), .bool(backupEligible),
                        .bool(backupState), .date(usedAt), .bool(backupEligibilityChanged),
                    ])
                guard updated == 1 else { return false }
                try SQLiteStore.insert(session, into: connection)
                return true
            }
        }
        guard recorded else { throw .notFound("the session's user has no credential with this ID") }
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
