import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 23: a passkey sign-in's session in five b-trees")
struct SQLiteSessionTableMigrationTests {
    private let byPasskey = StoreSamples.session(1, owner: 1)
    private let byApple = StoreSamples.appleSession(2, owner: 1, subject: "001.a")
    private var handedOff: SessionRecord {
        var session = StoreSamples.session(3, owner: 1)
        (session.method, session.credentialID, session.parentID) = (.recoveryCode, nil, byPasskey.id)
        (session.federatedIssuer, session.federatedSubject) = ("https://idp.example", "u1")
        session.lastUsedAt = StoreSamples.now.addingTimeInterval(-5)
        return session
    }

    /// A version-22 database at `path` (the steps' SQL and rewrites, as the migration of each release applied them)
    /// holding one account and three sessions, one of them a hand-off with every optional field set.
    private func versionTwentyTwoDatabase(_ path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.applySchemaSteps(through: 22)
        let records = SQLiteRecords(connection: connection)
        try records.insertUser(StoreSamples.user(1))
        try records.insertCredential(StoreSamples.credential(1, owner: 1))
        try records.insertAppleIdentity(StoreSamples.appleIdentity("001.a", owner: 1))
        for session in [byPasskey, byApple, handedOff] { try records.insertSession(session) }
    }

    /// The version-22 database opened (and so migrated) by this build.
    private func migratedStore(in directory: TemporaryDirectory) throws -> SQLiteStore {
        let path = directory.newDatabasePath()
        try versionTwentyTwoDatabase(path)
        return try SQLiteStore(path: path)
    }

    private func rows(_ store: SQLiteStore, _ sql: String, _ parameters: [SQLiteValue] = [], column: Int32) throws -> [String] {
        try store.withConnection { connection throws(SQLiteError) in
            try connection.statement(sql).run(parameters) { row throws(SQLiteError) in row.text(column) }
        }
    }

    /// The migrated table keeps every session and field, and has lost only the index by passkey.
    @Test func aVersionTwentyTwoDatabaseKeepsItsSessions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try migratedStore(in: directory)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        #expect(
            try rows(store, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'sessions' ORDER BY name", column: 0) == [
                "sessions_by_apple_subject", "sessions_by_expiry", "sessions_by_federated_identity", "sessions_by_parent", "sessions_by_user",
                "sqlite_autoindex_sessions_1", "sqlite_autoindex_sessions_2",
            ]
        )
        #expect(try store.integrityCheck() == ["ok"])
        let now = StoreSamples.now
        for session in [byPasskey, byApple, handedOff] {
            #expect(try store.session(tokenHash: session.tokenHash, now: now) == session)
            #expect(try store.session(id: session.id, now: now) == session)
        }
        #expect(try store.sessions(userID: StoreSamples.userID(1), now: now) == [byPasskey, byApple, handedOff].sorted(by: SessionRecord.precedes))
        // Session IDs stay unique.
        var twin = StoreSamples.session(9, owner: 1)
        twin.id = byPasskey.id
        #expect(throws: StorageError.self) { try store.transaction { transaction throws(StorageError) in try transaction.insertSession(twin) } }
    }

    /// Every query on sessions finds its rows through an index, none by scanning the table.
    @Test func everySessionQueryUsesAnIndex() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try migratedStore(in: directory)
        defer { store.close() }
        let queries: [(String, String)] = [
            ("SELECT \(SQLiteRecords.sessionColumns) FROM sessions WHERE token_hash = ?1", "sqlite_autoindex_sessions_1"),
            ("SELECT \(SQLiteRecords.sessionColumns) FROM sessions WHERE id = ?1", "sqlite_autoindex_sessions_2"),
            ("DELETE FROM sessions WHERE user_id = ?1 AND (?2 IS NULL OR id <> ?2)", "sessions_by_user"),
            ("DELETE FROM sessions WHERE expires_at <= ?1", "sessions_by_expiry"),
            ("DELETE FROM sessions WHERE apple_subject = ?1", "sessions_by_apple_subject"),
            ("DELETE FROM sessions WHERE federated_issuer = ?1 AND federated_subject = ?2", "sessions_by_federated_identity"),
            ("DELETE FROM sessions WHERE parent_id IN (?1)", "sessions_by_parent"),
        ]
        for (query, index) in queries {
            let plan = try rows(store, "EXPLAIN QUERY PLAN " + query, column: 3)
            #expect(plan.contains { $0.contains(index) }, "\(query): \(plan)")
        }
    }
}
