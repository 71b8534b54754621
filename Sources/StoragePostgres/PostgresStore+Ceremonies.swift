import Foundation
import Storage

extension PostgresStore {
    public func completeAuthentication(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        backupEligibilityChanged: Bool,
        session: SessionRecord
    ) throws(StorageError) {
        let recorded = try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> Bool in
                let updated = try connection.run("""
                    UPDATE credentials SET sign_count = $3, backup_eligible = $4, backup_state = $5, last_used_at = $6,
                        backup_eligibility_changed = (backup_eligibility_changed OR $7)
                    WHERE id = $1 AND user_id = $2
                    """, [
                        .bytea(credentialID), .bytea(session.userID), .bigint(Int64(signCount)), .boolean(backupEligible),
                        .boolean(backupState), .date(usedAt), .boolean(backupEligibilityChanged),
                    ])
                guard updated == 1 else { return false }
                try PostgresStore.insert(session, into: connection)
                return true
            }
        }
        guard recorded else { throw .notFound("the session's user has no credential with this ID") }
    }

    public func completeRegistration(newUser: UserRecord?, credential: CredentialRecord, session: SessionRecord) throws(StorageError) {
        try Self.checkRegistrationOwnership(newUser: newUser, credential: credential, session: session)
        let transports = try credential.transportsJSON()
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in
                if let newUser {
                    try PostgresStore.insert(newUser, into: connection)
                }
                try PostgresStore.insert(credential, transports: transports, into: connection)
                try PostgresStore.insert(session, into: connection)
            }
        }
    }
}
