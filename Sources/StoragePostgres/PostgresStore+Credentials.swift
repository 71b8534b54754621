import Foundation
import Storage

extension PostgresStore {
    public func addCredential(_ credential: CredentialRecord) throws(StorageError) {
        let transports = try credential.transportsJSON()
        try withConnection { connection throws(PostgresError) in
            try PostgresStore.insert(credential, transports: transports, into: connection)
        }
    }

    public func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresStore.credentialColumns) FROM credentials WHERE id = $1",
                [.bytea(id)],
                row: PostgresStore.credentialRecord
            ).first
        }
    }

    public func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(PostgresStore.credentialColumns) FROM credentials WHERE user_id = $1 ORDER BY created_at, id",
                [.bytea(userID)],
                row: PostgresStore.credentialRecord
            )
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
        let updated = try withConnection { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE credentials SET sign_count = GREATEST(sign_count, $2), backup_eligible = $3, backup_state = $4, last_used_at = $5,
                    clone_warning = (clone_warning OR $6),
                    backup_eligibility_changed = (backup_eligibility_changed OR $7)
                WHERE id = $1
                """,
                [
                    .bytea(credentialID), .bigint(Int64(signCount)), .boolean(backupEligible), .boolean(backupState),
                    .date(usedAt), .boolean(cloneWarning), .boolean(backupEligibilityChanged),
                ]
            )
        }
        guard updated == 1 else { throw .notFound("the credential does not exist") }
    }

    public func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.run(
                "UPDATE credentials SET name = $3 WHERE id = $1 AND user_id = $2",
                [.bytea(id), .bytea(userID), .text(name)]
            ) == 1
        }
    }

    public func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> CredentialDeletion {
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) -> CredentialDeletion in
                // The user's row lock orders concurrent deletions of the same account's credentials on every node,
                // so two of them can never each see the other credential and remove both.
                let users = try connection.run("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [.bytea(userID)])
                guard users == 1 else { return .notFound }
                let counts = try connection.run(
                    """
                    SELECT count(*), count(CASE WHEN id = $1 THEN 1 END),
                        (SELECT count(*) FROM apple_identities WHERE user_id = $2)
                    FROM credentials WHERE user_id = $2
                    """,
                    [.bytea(id), .bytea(userID)]
                ) { row throws(PostgresError) in
                    (total: try row.integer(0), matching: try row.integer(1), appleIdentities: try row.integer(2))
                }
                guard let count = counts.first, count.matching == 1 else { return .notFound }
                guard count.total > 1 || count.appleIdentities > 0 else { return .lastCredential }
                try connection.run("DELETE FROM credentials WHERE id = $1 AND user_id = $2", [.bytea(id), .bytea(userID)])
                return .deleted
            }
        }
    }

    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state, \
        attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, \
        backup_eligibility_changed
        """

    static func insert(_ credential: CredentialRecord, transports: String, into connection: PostgresConnection) throws(PostgresError) {
        try connection.run(
            """
            INSERT INTO credentials (\(credentialColumns))
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
            """,
            credentialValues(credential, transports: transports)
        )
    }

    /// The parameters $1…$16 for `credentialColumns`.
    static func credentialValues(_ credential: CredentialRecord, transports: String) -> [PostgresValue] {
        [
            .bytea(credential.id), .bytea(credential.userID), .bytea(credential.publicKey),
            .bigint(Int64(credential.algorithm)), .bigint(Int64(credential.signCount)), .text(transports),
            .bytea(credential.aaguid), .boolean(credential.backupEligible), .boolean(credential.backupState),
            .text(credential.attestationFormat), .text(credential.attestationSummary), .text(credential.name),
            .date(credential.createdAt), .optional(credential.lastUsedAt, PostgresValue.date),
            .boolean(credential.cloneWarning), .boolean(credential.backupEligibilityChanged),
        ]
    }

    static func credentialRecord(_ row: PostgresRow) throws(PostgresError) -> CredentialRecord {
        guard let transports = CredentialRecord.transports(json: row.bytes(5)) else {
            throw PostgresError.decoding("a credential's transports are not a JSON array of strings")
        }
        return CredentialRecord(
            id: row.bytes(0),
            userID: row.bytes(1),
            publicKey: row.bytes(2),
            algorithm: Int(try row.integer(3)),
            signCount: UInt32(truncatingIfNeeded: try row.integer(4)),
            transports: transports,
            aaguid: row.bytes(6),
            backupEligible: try row.boolean(7),
            backupState: try row.boolean(8),
            attestationFormat: row.text(9),
            attestationSummary: row.text(10),
            name: row.text(11),
            createdAt: try row.date(12),
            lastUsedAt: row.isNull(13) ? nil : try row.date(13),
            cloneWarning: try row.boolean(14),
            backupEligibilityChanged: try row.boolean(15)
        )
    }
}
