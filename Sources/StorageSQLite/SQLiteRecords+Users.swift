import Foundation
import Storage

extension SQLiteRecords {
    /// `name_key` (`UserRecord.nameKey`) and `name_skeleton` (`UserRecord.nameSkeleton`) are written from the name and
    /// never read back.
    static let userColumns =
        "id, name, display_name, created_at, display_name_is_default, app_account_token, email, email_verified, name_key, external_id, disabled, metadata, "
        + "name_skeleton"

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE id = ?1").run([.blob(id)], row: Self.userRecord).first
        }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE name_key = ?1")
                .run([.text(UserRecord.nameKey(of: name))], row: Self.userRecord).first
        }
    }

    /// Through `users_by_name_skeleton`.
    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE name_skeleton = ?1 ORDER BY created_at, id LIMIT 1")
                .run([.text(skeleton)], row: Self.userRecord).first
        }
    }

    /// Through `users_by_external_id`.
    func user(externalID: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE external_id = ?1").run([.text(externalID)], row: Self.userRecord)
                .first
        }
    }

    /// `lower()` folds ASCII letters only, as the contract says.
    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.userColumns) FROM users WHERE email_verified = 1 AND lower(email) = lower(?1) ORDER BY created_at, id"
            ).run([.text(email)], row: Self.userRecord)
        }
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try user.validate() }
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO users (\(Self.userColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)").run(
                Self.userValues(user)
            )
        }
    }

    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try user.validate() }
        return try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                UPDATE users SET name = ?2, display_name = ?3, display_name_is_default = ?5, email = ?7, email_verified = ?8, name_key = ?9,
                    external_id = ?10, disabled = ?11, metadata = ?12, name_skeleton = ?13
                WHERE id = ?1
                """
            ).run(Self.userValues(user)) == 1
        }
    }

    /// Foreign keys with ON DELETE CASCADE remove the account's other rows.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM users WHERE id = ?1").run([.blob(id)]) == 1
        }
    }

    /// The values of `userColumns`, as ?1 to ?13.
    static func userValues(_ user: UserRecord) -> [SQLiteValue] {
        [
            .blob(user.id), .text(user.name), .text(user.displayName), .date(user.createdAt), .bool(user.displayNameIsDefault),
            .text(user.appAccountToken.lowercaseText), user.email.map { .text($0) } ?? .null, .bool(user.emailVerified),
            .text(user.nameKey), user.externalID.map { .text($0) } ?? .null, .bool(user.disabled), user.metadata.map { .text($0) } ?? .null,
            .text(user.nameSkeleton),
        ]
    }

    static func userRecord(_ row: SQLiteRow) throws(SQLiteError) -> UserRecord {
        guard let token = UUID(canonicalText: row.text(5)) else { throw SQLiteError(.corrupt, "a user's app account token is not a UUID") }
        return UserRecord(
            id: row.blob(0),
            name: row.text(1),
            displayName: row.text(2),
            displayNameIsDefault: row.bool(4),
            appAccountToken: token,
            email: row.isNull(6) ? nil : row.text(6),
            emailVerified: row.bool(7),
            createdAt: row.date(3),
            externalID: row.isNull(9) ? nil : row.text(9),
            disabled: row.bool(10),
            metadata: row.isNull(11) ? nil : row.text(11)
        )
    }

    /// A range scan of the name key's unique index (BINARY collation: byte-wise).
    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord] {
        let range = NamePrefixRange(prefix: UserRecord.nameKey(of: prefix))
        let after = after.map(UserRecord.nameKey(of:))
        return try run { connection throws(SQLiteError) in
            try connection.statement(
                """
                SELECT \(Self.userColumns) FROM users
                WHERE name_key >= ?1 AND (?2 IS NULL OR name_key < ?2) AND (?3 IS NULL OR name_key > ?3)
                ORDER BY name_key LIMIT ?4
                """
            ).run(
                [.text(range.lower), range.upper.map { .text($0) } ?? .null, after.map { .text($0) } ?? .null, .integer(Int64(max(0, limit)))],
                row: Self.userRecord
            )
        }
    }

    /// Through `users_by_email` (lower(email)).
    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.userColumns) FROM users WHERE lower(email) = lower(?1) ORDER BY created_at, id LIMIT ?2")
                .run([.text(email), .integer(Int64(max(0, limit)))], row: Self.userRecord)
        }
    }
}
