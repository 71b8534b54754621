import CSQLite
import Foundation
import Storage

extension SQLiteRecords {
    static let credentialColumns = """
        id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state, \
        attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, \
        backup_eligibility_changed, user_handle
        """

    /// Built once: a sign-in whose passkey the node did not keep reads it here first.
    static let credentialQuery = SQLiteQuery("SELECT \(credentialColumns) FROM credentials WHERE id = ?1")

    func credential(id: [UInt8]) throws(StorageError) -> CredentialRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement(Self.credentialQuery).run([.blob(id)], row: Self.credentialRecord).first
        }
    }

    func credentials(userID: [UInt8]) throws(StorageError) -> [CredentialRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.credentialColumns) FROM credentials WHERE user_id = ?1 ORDER BY created_at, id")
                .run([.blob(userID)], row: Self.credentialRecord)
        }
    }

    func insertCredential(_ credential: CredentialRecord) throws(StorageError) {
        var transports = ""
        try validate { () throws(StorageError) in transports = try credential.transportsJSON() }
        try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                INSERT INTO credentials (\(Self.credentialColumns))
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
                """
            ).run([
                .blob(credential.id), .blob(credential.userID), .blob(credential.publicKey),
                .integer(Int64(credential.algorithm)), .integer(Int64(credential.signCount)), .text(transports),
                .blob(credential.aaguid), .bool(credential.backupEligible), .bool(credential.backupState),
                .text(credential.attestationFormat), .text(credential.attestationSummary), .text(credential.name),
                .date(credential.createdAt), credential.lastUsedAt.map { .date($0) } ?? .null,
                .bool(credential.cloneWarning), .bool(credential.backupEligibilityChanged), .blob(credential.userHandle),
            ])
        }
    }

    func recordAuthentication(_ update: AuthenticationUpdate) throws(StorageError) {
        let updated = try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE credentials SET sign_count = max(sign_count, ?2), backup_eligible = ?3, backup_state = ?4, last_used_at = ?5,
                    clone_warning = (clone_warning OR ?6),
                    backup_eligibility_changed = (backup_eligibility_changed OR ?7)
                WHERE id = ?1
                """
            ).run([
                .blob(update.credentialID), .integer(Int64(update.signCount)), .bool(update.backupEligible), .bool(update.backupState),
                .date(update.usedAt), .bool(update.cloneWarning), .bool(update.backupEligibilityChanged),
            ])
        }
        guard updated == 1 else { throw StorageError(.notFound, "the credential does not exist") }
    }

    /// The sign-in's write of `CeremonyStore.completeAuthentication`: §7.2 step 23 against the counter stored now, the
    /// row updated only when the counter increased (or both are zero), the user is not disabled and the credential
    /// holds what the verification assumed (`SignInExpectation`).
    static let signInRecording = SQLiteQuery(
        """
        UPDATE credentials SET sign_count = ?3, backup_eligible = ?4, backup_state = ?5, last_used_at = ?6,
            clone_warning = (clone_warning OR ?7),
            backup_eligibility_changed = (backup_eligibility_changed OR ?8)
        WHERE id = ?1 AND user_id = ?2 AND (sign_count < ?3 OR (?3 = 0 AND sign_count = 0))
            AND NOT EXISTS (SELECT 1 FROM users WHERE id = ?2 AND disabled = 1)
            AND public_key = ?9 AND backup_eligible = ?10 AND user_handle = ?11
        """
    )

    /// Records a sign-in, only on a stored credential of `userID` that holds `expecting` (`.credentialChanged` else,
    /// found before the user and the counter).
    func recordSignIn(_ update: AuthenticationUpdate, userID: [UInt8], expecting: SignInExpectation) throws(StorageError) -> CounterUpdate {
        try run { connection throws(SQLiteError) -> CounterUpdate in
            let updated = try connection.statement(Self.signInRecording).run([
                .blob(update.credentialID), .blob(userID), .integer(Int64(update.signCount)), .bool(update.backupEligible),
                .bool(update.backupState), .date(update.usedAt), .bool(update.cloneWarning), .bool(update.backupEligibilityChanged),
                .blob(expecting.publicKey), .bool(expecting.backupEligible), .blob(expecting.userHandle),
            ])
            guard updated == 0 else { return .recorded }
            let held = try connection.statement("SELECT \(Self.credentialColumns) FROM credentials WHERE id = ?1 AND user_id = ?2")
                .run([.blob(update.credentialID), .blob(userID)], row: Self.credentialRecord).first.map(expecting.holds(for:))
            guard held == true else { return .credentialChanged }
            let disabled: [Void] = try connection.statement("SELECT 1 FROM users WHERE id = ?1 AND disabled = 1")
                .run([.blob(userID)]) { _ throws(SQLiteError) in () }
            return disabled.isEmpty ? .counterNotIncreased : .userDisabled
        }
    }

    func renameCredential(id: [UInt8], userID: [UInt8], name: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE credentials SET name = ?3 WHERE id = ?1 AND user_id = ?2")
                .run([.blob(id), .blob(userID), .text(name)]) == 1
        }
    }

    func moveCredentials(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE credentials SET user_id = ?2 WHERE user_id = ?1").run([.blob(userID), .blob(targetUserID)])
        }
    }

    func deleteCredential(id: [UInt8], userID: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM credentials WHERE id = ?1 AND user_id = ?2").run([.blob(id), .blob(userID)]) == 1
        }
    }

    static func credentialRecord(_ row: SQLiteRow) throws(SQLiteError) -> CredentialRecord {
        guard let transports = CredentialRecord.transports(json: row.blob(5)) else {
            throw SQLiteError(.corrupt, "a credential's transports are not a JSON array of strings")
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
            backupEligibilityChanged: row.bool(15),
            userHandle: row.blob(16)
        )
    }
}
