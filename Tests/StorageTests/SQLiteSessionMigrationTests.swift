import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

@Suite("SQLite migrations 3 and 4: session fields, the event outbox")
struct SQLiteSessionMigrationTests {
    @Test func aVersionTwoDatabaseKeepsItsSessionsWithDefaultsAndGainsTheOutbox() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let created = StoreSamples.now.addingTimeInterval(-120.5)
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute(SQLiteMigrations.steps[0].sql + SQLiteMigrations.steps[1].sql + "PRAGMA user_version = 2;")
            for number: UInt8 in [1, 2] {
                try connection.statement("INSERT INTO users (id, name, display_name, created_at) VALUES (?1, ?2, 'x', 0)")
                    .run([.blob(StoreSamples.userID(number)), .text("user-\(number)")])
                try connection.statement("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
                    .run([
                        .blob(StoreSamples.session(number, owner: number).tokenHash), .blob(StoreSamples.userID(number)), .date(created),
                        .date(StoreSamples.now.addingTimeInterval(600)),
                    ])
            }
            // User 1 signs in with a passkey, user 2 only with Apple.
            try connection.statement(
                """
                INSERT INTO credentials (id, user_id, public_key, algorithm, sign_count, transports, aaguid, backup_eligible, backup_state,
                    attestation_format, attestation_summary, name, created_at, last_used_at, clone_warning, backup_eligibility_changed)
                VALUES (?1, ?2, x'00', -7, 0, '[]', x'00', 0, 0, 'none', '', 'Key', 0, NULL, 0, 0)
                """
            ).run([.blob([1, 2, 3]), .blob(StoreSamples.userID(1))])
        }
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let version = try store.withConnection { connection throws(SQLiteError) in try SQLiteMigrations.currentVersion(connection) }
        #expect(version == SQLiteMigrations.latestVersion)
        #expect(try store.webhookDeliveries(status: nil, after: 0, limit: 1) == [], "and the webhook tables (version 5), empty")
        let migrated = try [UInt8(1), 2].map { number in
            try #require(try store.session(tokenHash: StoreSamples.session(number, owner: number).tokenHash, now: StoreSamples.now))
        }
        #expect(migrated.map(\.method) == [.passkey, .apple])
        #expect(migrated.allSatisfy { $0.id.count == 16 && $0.authenticatedAt == created && $0.createdAt == created })
        #expect(
            migrated.allSatisfy {
                !$0.userVerified && $0.credentialID == nil && $0.appleSubject == nil && $0.userAgent == nil && $0.lastUsedAt == nil
            }
        )
        #expect(migrated[0].id != migrated[1].id)
        // The new tables and columns work.
        try store.seedSession(StoreSamples.session(3, owner: 1))
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(1, owner: 1)) }
        #expect(try store.allEvents().count == 1)
        #expect(try store.integrityCheck() == ["ok"])
    }
}
