import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migration 11: the challenge table in two b-trees per sign-in challenge")
struct SQLiteChallengeTableMigrationTests {
    private let withUser = StoreSamples.challenge(1, userID: StoreSamples.userID(1))
    private let withoutUser = StoreSamples.challenge(2)

    /// A version-10 database at `path` holding one account and the two challenges, one of them the account's.
    private func versionTenDatabase(_ path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute(
            SQLiteMigrations.steps.prefix(10).map(\.sql).joined()
                + "CREATE UNIQUE INDEX users_by_name_key ON users(name_key); PRAGMA user_version = 10;"
        )
        try connection.statement(
            "INSERT INTO users (id, name, display_name, created_at, app_account_token, name_key) VALUES (?1, 'ann', 'Ann', 0, ?2, 'ann')"
        ).run([.blob(StoreSamples.userID(1)), .text(StoreSamples.appAccountToken(1).uuidString.lowercased())])
        for challenge in [withUser, withoutUser] {
            try connection.statement(
                "INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            ).run([
                .blob(challenge.challenge), .text(challenge.ceremony.rawValue), challenge.userID.map { .blob($0) } ?? .null,
                .text(challenge.userVerification), .blob(challenge.context), .date(challenge.expiresAt),
            ])
        }
    }

    /// The version-10 database opened (and so migrated) by this build.
    private func migratedStore(in directory: TemporaryDirectory) throws -> SQLiteStore {
        let path = directory.newDatabasePath()
        try versionTenDatabase(path)
        return try SQLiteStore(path: path)
    }

    private func schema(_ store: SQLiteStore, _ name: String) throws -> String? {
        try store.withConnection { connection throws(SQLiteError) in
            try connection.statement("SELECT sql FROM sqlite_master WHERE name = ?1").run([.text(name)]) { row throws(SQLiteError) in
                row.text(0)
            }.first
        }
    }

    /// The migrated table keeps its outstanding challenges, lives in its primary key's b-tree, and indexes only the
    /// challenges that have a user.
    @Test func aVersionTenDatabaseKeepsItsChallenges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try migratedStore(in: directory)
        defer { store.close() }
        #expect(
            try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
                == SQLiteMigrations.latestVersion
        )
        #expect(try schema(store, "challenges")?.hasSuffix("WITHOUT ROWID") == true)
        #expect(try schema(store, "challenges_by_user")?.hasSuffix("WHERE user_id IS NOT NULL") == true)
        #expect(try schema(store, "challenges_by_expiry") != nil)
        #expect(try schema(store, "challenges_v10") == nil)
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try store.takeChallenge(withUser.challenge, now: StoreSamples.now) == .valid(withUser))
        #expect(try store.takeChallenge(withoutUser.challenge, now: StoreSamples.now) == .valid(withoutUser))
    }

    /// The cascade from a deleted account finds its challenges through the partial index (a lookup by `user_id =`
    /// implies `user_id IS NOT NULL`), not by scanning every challenge.
    @Test func theUserIndexServesTheCascade() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try migratedStore(in: directory)
        defer { store.close() }
        let plan = try store.withConnection { connection throws(SQLiteError) in
            try connection.statement("EXPLAIN QUERY PLAN DELETE FROM challenges WHERE user_id = ?1").run([.blob(StoreSamples.userID(1))]) {
                row throws(SQLiteError) in row.text(3)
            }
        }
        #expect(plan.contains { $0.contains("challenges_by_user") }, "plan: \(plan)")
    }
}
