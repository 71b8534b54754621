import Storage

/// The schema history. Each step brings the schema from `version - 1` to `version`; `PRAGMA user_version`
/// records the last step applied. Never edit a released step: append a new one.
///
/// Times are REAL seconds since 2001-01-01T00:00:00Z (Foundation's reference date), which round-trips
/// `Date` exactly. Booleans are INTEGER 0/1. Transports are a JSON array of strings.
enum SQLiteMigrations {
    struct Step {
        let version: Int
        let sql: String
    }

    static let steps: [Step] = [
        Step(
            version: 1,
            sql: """
                CREATE TABLE users (
                    id BLOB PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE credentials (
                    id BLOB PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    public_key BLOB NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count INTEGER NOT NULL,
                    transports TEXT NOT NULL,
                    aaguid BLOB NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backup_state INTEGER NOT NULL,
                    attestation_format TEXT NOT NULL,
                    attestation_summary TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    last_used_at REAL,
                    clone_warning INTEGER NOT NULL,
                    backup_eligibility_changed INTEGER NOT NULL
                );
                CREATE INDEX credentials_by_user ON credentials(user_id, created_at, id);
                CREATE TABLE challenges (
                    challenge BLOB PRIMARY KEY NOT NULL,
                    ceremony TEXT NOT NULL,
                    user_id BLOB REFERENCES users(id) ON DELETE CASCADE,
                    user_verification TEXT NOT NULL,
                    context BLOB NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX challenges_by_user ON challenges(user_id);
                CREATE INDEX challenges_by_expiry ON challenges(expires_at);
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX sessions_by_user ON sessions(user_id);
                CREATE INDEX sessions_by_expiry ON sessions(expires_at);
                """
        ),
        // Sign in with Apple: identities (deleted with their user), the nonce replay guard, and the revocation
        // queue, which deliberately has no reference to users so that it outlives a deleted account.
        Step(
            version: 2,
            sql: """
                CREATE TABLE apple_identities (
                    subject TEXT PRIMARY KEY NOT NULL,
                    user_id BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified INTEGER NOT NULL,
                    is_private_email INTEGER NOT NULL,
                    email_disabled INTEGER NOT NULL,
                    real_user_status INTEGER,
                    transfer_subject TEXT,
                    encrypted_refresh_token BLOB,
                    refresh_token_client_id TEXT,
                    created_at REAL NOT NULL
                );
                CREATE INDEX apple_identities_by_user ON apple_identities(user_id, created_at, subject);
                CREATE TABLE apple_nonces (
                    hash BLOB PRIMARY KEY NOT NULL,
                    expires_at REAL NOT NULL
                );
                CREATE INDEX apple_nonces_by_expiry ON apple_nonces(expires_at);
                CREATE TABLE apple_revocations (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    encrypted_token BLOB NOT NULL,
                    client_id TEXT NOT NULL,
                    not_before REAL NOT NULL,
                    attempts INTEGER NOT NULL
                );
                CREATE INDEX apple_revocations_by_time ON apple_revocations(not_before, id);
                """
        ),
    ]

    /// The schema version this build writes.
    static var latestVersion: Int { steps.last?.version ?? 0 }

    /// Applies the missing steps in one IMMEDIATE transaction, so concurrent openers apply them once.
    /// - Throws: `storage.migrationFailed` when the database is newer than this build or a step fails.
    static func migrate(_ connection: SQLiteConnection) throws(StorageError) {
        let found: Int
        do throws(SQLiteError) {
            found = try connection.immediateTransaction { () throws(SQLiteError) -> Int in
                let current = try currentVersion(connection)
                for step in steps where current < step.version && current <= latestVersion {
                    try connection.execute(step.sql)
                    try connection.execute("PRAGMA user_version = \(step.version)")
                }
                return current
            }
        } catch {
            throw .migrationFailed("migrating to schema version \(latestVersion) failed: \(error.storageError.reason)")
        }
        guard found <= latestVersion else {
            throw .migrationFailed(
                "the database schema version \(found) is newer than version \(latestVersion), "
                    + "the latest this build knows"
            )
        }
    }

    /// Reads `PRAGMA user_version`.
    static func currentVersion(_ connection: SQLiteConnection) throws(SQLiteError) -> Int {
        let versions = try connection.statement("PRAGMA user_version").run([]) { row throws(SQLiteError) in
            Int(row.integer(0))
        }
        return versions.first ?? 0
    }
}
