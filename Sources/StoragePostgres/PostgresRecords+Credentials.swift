import Foundation
import Storage

extension PostgresRecords {
    /// `passkeyd_credential_row` (schema step 28) answers these columns: a column added here is added to that type and
    /// its function by the same step.
    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state, \
        attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, \
        backup_eligibility_changed, user_handle
        """

    /// Directly, a statement prepared once per connection; through a transaction-mode pooler, where a statement is
    /// sent unnamed, parsed and planned with each call and the connection's `lock_timeout` is not ours, step 28's
    /// `passkeyd_credential`, planned once per server connection and carrying its own bound, called without `FROM`:
    /// its row one composite value (callgrind, per call parsed each time: 155,669 instructions, against 279,419 with
    /// `SELECT * FROM`, 338,489 for this statement and 444,859 for the passkey and its owner).
    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try run { connection throws(PostgresError) in
            guard connection.transactionPooling else {
                return try connection.run(Self.credentialQuery, [.bytea(id)], row: Self.credentialRecord).first
            }
            return try connection.run(Self.credentialCall, [.bytea(id)]) { row throws(PostgresError) in
                try Self.credentialRecord(try row.composite(0, fields: Self.credentialFields))
            }.first
        }
    }

    /// Built once: a sign-in whose passkey the node did not keep reads it here first.
    private static let credentialQuery = "SELECT \(credentialColumns) FROM credentials WHERE id = $1"
    private static let credentialCall = "SELECT passkeyd_credential($1)"
    private static let credentialFields = credentialColumns.split(separator: ",").count

    /// `columns` (a list "a, b, …") each prefixed with `table`, for a join of tables with column names in common.
    static func qualified(_ columns: String, _ table: String) -> String {
        columns.split(separator: ",").map { "\(table).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
    }

    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.credentialColumns) FROM credentials WHERE user_id = $1 ORDER BY created_at, id",
                [.bytea(userID)],
                row: Self.credentialRecord
            )
        }
    }

    func insertCredential(_ credential: CredentialRecord) throws(StorageError) {
        var parameters = PostgresParameters()
        var values = ""
        try validate { () throws(StorageError) in values = parameters.bind(try Self.credentialValues(credential)) }
        try run { connection throws(PostgresError) in
            try connection.run("INSERT INTO credentials (\(Self.credentialColumns)) VALUES (\(values))", parameters.values)
        }
    }

    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError) {
        let updated = try run { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE credentials SET sign_count = GREATEST(sign_count, $2), backup_eligible = $3, backup_state = $4, last_used_at = $5,
                    clone_warning = (clone_warning OR $6),
                    backup_eligibility_changed = (backup_eligibility_changed OR $7)
                WHERE id = $1
                """,
                [
                    .bytea(update.credentialID), .bigint(Int64(update.signCount)), .boolean(update.backupEligible),
                    .boolean(update.backupState), .date(update.usedAt), .boolean(update.cloneWarning), .boolean(update.backupEligibilityChanged),
                ]
            )
        }
        guard updated == 1 else { throw StorageError(.notFound, "the credential does not exist") }
    }

    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE credentials SET name = $3 WHERE id = $1 AND user_id = $2", [.bytea(id), .bytea(userID), .text(name)]) == 1
        }
    }

    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE credentials SET user_id = $2 WHERE user_id = $1", [.bytea(userID), .bytea(targetUserID)])
        }
    }

    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM credentials WHERE id = $1 AND user_id = $2", [.bytea(id), .bytea(userID)]) == 1
        }
    }

    /// The values of `credentialColumns`, with their types.
    static func credentialValues(_ credential: CredentialRecord) throws(StorageError) -> [(PostgresValue, String)] {
        [
            (.bytea(credential.id), "bytea"), (.bytea(credential.userID), "bytea"), (.bytea(credential.publicKey), "bytea"),
            (.bigint(Int64(credential.algorithm)), "int8"), (.bigint(Int64(credential.signCount)), "int8"),
            (.text(try credential.transportsJSON()), "text"), (.bytea(credential.aaguid), "bytea"),
            (.boolean(credential.backupEligible), "boolean"), (.boolean(credential.backupState), "boolean"),
            (.text(credential.attestationFormat), "text"), (.text(credential.attestationSummary), "text"), (.text(credential.name), "text"),
            (.date(credential.createdAt), "float8"), (.optional(credential.lastUsedAt, PostgresValue.date), "float8"),
            (.boolean(credential.cloneWarning), "boolean"), (.boolean(credential.backupEligibilityChanged), "boolean"),
            (.bytea(credential.userHandle), "bytea"),
        ]
    }

    static func credentialRecord(_ row: PostgresRow) throws(PostgresError) -> CredentialRecord {
        guard let transports = CredentialRecord.transports(json: row.bytes(5)) else {
            throw PostgresError(.decodingFailed, "a credential's transports are not a JSON array of strings")
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
            backupEligibilityChanged: try row.boolean(15),
            userHandle: row.bytes(16)
        )
    }
}
