import CSQLite
import Foundation
import Storage

extension SQLiteStore {
    public func addCredential(_ credential: CredentialRecord) throws(StorageError) {
        let transports = try credential.transportsJSON()
        try withConnection { connection throws(SQLiteError) in
            try SQLiteStore.insert(credential, transports: transports, into: connection)
        }
    }

    public func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(SQLiteStore.credentialColumns) FROM credentials WHERE id = ?1"
            ).run([.blob(id)], row: SQLiteStore.credentialRecord).first
        }
    }

    public func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(SQLiteStore.credentialColumns) FROM credentials WHERE user_id = ?1 ORDER BY created_at, id"
            ).run([.blob(userID)], row: SQLiteStore.credentialRecord)
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
        let updated = try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE credentials SET sign_count = max(sign_count, ?2), backup_eligible = ?3, backup_state = ?4, last_used_at = ?5,
                    clone_warning = (clone_warning OR ?6),
                    backup_eligibility_changed = (backup_eligibility_changed OR ?7)
                WHERE id = ?1
                """
            ).run([
                .blob(credentialID), .integer(Int64(signCount)), .bool(backupEligible), .bool(backupState),
                .date(usedAt), .bool(cloneWarning), .bool(backupEligibilityChanged),
            ])
        }
        guard updated == 1 else { throw .notFound("the credential does not exist") }
    }

    public func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try withConnection { connection throws(SQLiteError) in
            try connection.statement(
                "UPDATE credentials SET name = ?3 WHERE id = ?1 AND user_id = ?2"
            ).run([.blob(id), .blob(userID), .text(name)]) == 1
        }
    }

    public func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion {
        try withConnection { connection throws(SQLiteError) in
            try connection.immediateTransaction { () throws(SQLiteError) -> CredentialDeletion in
                let counts = try connection.statement(
                    """
                    SELECT count(*), count(CASE WHEN id = ?1 THEN 1 END),
                        (SELECT count(*) FROM apple_identities WHERE user_id = ?2)
                    FROM credentials WHERE user_id = ?2
                    """
                ).run([.blob(id), .blob(userID)]) { row throws(SQLiteError) in
                    (total: row.integer(0), matching: row.integer(1), appleIdentities: row.integer(2))
                }
                guard let count = counts.first, count.matching == 1 else { return .notFound }
                guard count.total > 1 || count.appleIdentities > 0 else { return .lastCredential }
                try connection.statement("DELETE FROM credentials WHERE id = ?1 AND user_id = ?2")
                    .run([.blob(id), .blob(userID)])
                return .deleted
            }
        }
    }

    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state, \
        attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, \
        backup_eligibility_changed
        """

    static func insert(
        _ credential: CredentialRecord,
        transports: String,
        into connection: SQLiteConnection
    ) throws(SQLiteError) {
        try connection.statement(
            """
            INSERT INTO credentials (\(credentialColumns))
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
            """
        ).run([
            .blob(credential.id), .blob(credential.userID), .blob(credential.publicKey),
            .integer(Int64(credential.algorithm)), .integer(Int64(credential.signCount)), .text(transports),
            .blob(credential.aaguid), .bool(credential.backupEligible), .bool(credential.backupState),
            .text(credential.attestationFormat), .text(credential.attestationSummary), .text(credential.name),
            .date(credential.createdAt), credential.lastUsedAt.map { .date($0) } ?? .null,
            .bool(credential.cloneWarning), .bool(credential.backupEligibilityChanged),
        ])
    }

    static func credentialRecord(_ row: SQLiteRow) throws(SQLiteError) -> CredentialRecord {
        guard let transports = CredentialRecord.transports(json: row.blob(5)) else {
            throw SQLiteError(operation: "decode transports", code: SQLITE_CORRUPT, connection: nil)
        }
        return CredentialRecord(
            id: row.blob(0),
            userID: row.blob(1),
            publicKey: row.blob(2),
            algorithm: Int(row.integer(3)),
            signCount: UInt32(truncatingIfNeeded: row.integer(4)),
            transports: transports,
            aaguid: row.blob(6),
            backupEligible: row.bool(7),
            backupState: row.bool(8),
            attestationFormat: row.text(9),
            attestationSummary: row.text(10),
            name: row.text(11),
            createdAt: row.date(12),
            lastUsedAt: row.isNull(13) ? nil : row.date(13),
            cloneWarning: row.bool(14),
            backupEligibilityChanged: row.bool(15)
        )
    }
}
