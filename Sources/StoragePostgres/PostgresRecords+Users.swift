import Foundation
import Storage

extension PostgresRecords {
    /// `name_key` (`UserRecord.nameKey`) and `name_skeleton` (`UserRecord.nameSkeleton`) are written from the name and
    /// never read back. The sign-in's write answers these columns (`passkeyd_sign_in_answer`, schema step 28): a column
    /// added here is added to that type by the same step.
    static let userColumns =
        "id, name, display_name, created_at, display_name_is_default, app_account_token, email, email_verified, name_key, external_id, disabled, metadata, "
        + "name_skeleton"

    func user(id: [UInt8]) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.userColumns) FROM users WHERE id = $1", [.bytea(id)], row: Self.userRecord).first
        }
    }

    func user(name: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.userColumns) FROM users WHERE name_key = $1",
                [.text(UserRecord.nameKey(of: name))],
                row: Self.userRecord
            )
            .first
        }
    }

    /// Through `users_external_id_unique`.
    func user(externalID: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.userColumns) FROM users WHERE external_id = $1", [.text(externalID)], row: Self.userRecord).first
        }
    }

    /// Under the C collation `lower()` folds ASCII letters only, as the contract (and SQLite) says.
    func users(verifiedEmail email: String) throws(StorageError) -> [UserRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(Self.userColumns) FROM users WHERE email_verified AND lower(email COLLATE "C") = lower($1 COLLATE "C")
                ORDER BY created_at, id
                """,
                [.text(email)],
                row: Self.userRecord
            )
        }
    }

    /// Through `users_by_name_skeleton`.
    func user(nameSkeleton skeleton: String) throws(StorageError) -> UserRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.userColumns) FROM users WHERE name_skeleton = $1 ORDER BY created_at, id LIMIT 1",
                [.text(skeleton)],
                row: Self.userRecord
            ).first
        }
    }

    func insertUser(_ user: UserRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try user.validate() }
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.userValues(user))
        try run { connection throws(PostgresError) in
            try connection.run("INSERT INTO users (\(Self.userColumns)) VALUES (\(values))", parameters.values)
        }
    }

    func updateUser(_ user: UserRecord) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try user.validate() }
        return try run { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE users SET name = $2, display_name = $3, display_name_is_default = $4, email = $5, email_verified = $6, name_key = $7,
                    external_id = $8, disabled = $9, metadata = $10, name_skeleton = $11
                WHERE id = $1
                """,
                [
                    .bytea(user.id), .text(user.name), .text(user.displayName), .boolean(user.displayNameIsDefault),
                    .optional(user.email, PostgresValue.text), .boolean(user.emailVerified), .text(user.nameKey),
                    .optional(user.externalID, PostgresValue.text), .boolean(user.disabled), .optional(user.metadata, PostgresValue.text),
                    .text(user.nameSkeleton),
                ]
            ) == 1
        }
    }

    /// Foreign keys with ON DELETE CASCADE remove the account's other rows.
    func deleteUser(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM users WHERE id = $1", [.bytea(id)]) == 1
        }
    }

    /// The values of `userColumns`, with their types.
    static func userValues(_ user: UserRecord) -> [(PostgresValue, String)] {
        [
            (.bytea(user.id), "bytea"), (.text(user.name), "text"), (.text(user.displayName), "text"), (.date(user.createdAt), "float8"),
            (.boolean(user.displayNameIsDefault), "boolean"), (.text(user.appAccountToken.lowercaseText), "text"),
            (.optional(user.email, PostgresValue.text), "text"), (.boolean(user.emailVerified), "boolean"), (.text(user.nameKey), "text"),
            (.optional(user.externalID, PostgresValue.text), "text"), (.boolean(user.disabled), "boolean"),
            (.optional(user.metadata, PostgresValue.text), "text"), (.text(user.nameSkeleton), "text"),
        ]
    }

    static func userRecord(_ row: PostgresRow) throws(PostgresError) -> UserRecord {
        guard let token = UUID(canonicalText: row.text(5)) else { throw PostgresError(.decodingFailed, "a user's app account token is not a UUID") }
        return UserRecord(
            id: row.bytes(0),
            name: row.text(1),
            displayName: row.text(2),
            displayNameIsDefault: try row.boolean(4),
            appAccountToken: token,
            email: row.isNull(6) ? nil : row.text(6),
            emailVerified: try row.boolean(7),
            createdAt: try row.date(3),
            externalID: row.isNull(9) ? nil : row.text(9),
            disabled: try row.boolean(10),
            metadata: row.isNull(11) ? nil : row.text(11)
        )
    }

    /// A range scan of `users_name_key_unique` (the column's "C" collation: byte-wise), whatever the database's.
    func users(namePrefix prefix: String, after: String?, limit: Int) throws(StorageError) -> [UserRecord] {
        let range = NamePrefixRange(prefix: UserRecord.nameKey(of: prefix))
        let after = after.map(UserRecord.nameKey(of:))
        return try run { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(Self.userColumns) FROM users
                WHERE name_key >= $1 AND ($2::text IS NULL OR name_key < $2) AND ($3::text IS NULL OR name_key > $3)
                ORDER BY name_key LIMIT $4
                """,
                [
                    .text(range.lower), .optional(range.upper, PostgresValue.text), .optional(after, PostgresValue.text),
                    .bigint(Int64(max(0, limit))),
                ],
                row: Self.userRecord
            )
        }
    }

    /// Through `users_by_email` (lower(email COLLATE "C")).
    func users(email: String, limit: Int) throws(StorageError) -> [UserRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(Self.userColumns) FROM users WHERE lower(email COLLATE "C") = lower($1 COLLATE "C")
                ORDER BY created_at, id LIMIT $2
                """,
                [.text(email), .bigint(Int64(max(0, limit)))],
                row: Self.userRecord
            )
        }
    }
}
