import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

#if canImport(Glibc)
import Glibc
#endif

/// `SQLiteStore.backUp` (the online backup API) and `endGrantsAfterRestore`, on database files.
@Suite("SQLite backup and restore")
struct SQLiteBackupTests {
    @Test func aBackupIsAPrivateCheckedCopyTakenWhileTheStoreWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.newDatabasePath()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedSession(StoreSamples.session(1, owner: 1))
        let copy = directory.url.appendingPathComponent("copy.sqlite").path
        // The store stays open (its WAL not checkpointed) while the copy is taken.
        #expect(try SQLiteStore.backUp(databaseAt: path, to: copy) == SQLiteStore.latestSchemaVersion)
        var status = stat()
        #expect(stat(copy, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))

        let restored = try SQLiteStore(path: copy)
        defer { restored.close() }
        #expect(try restored.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        #expect(try restored.user(id: StoreSamples.userID(2)) == nil)
        // A second backup onto an existing file is refused: a backup never overwrites.
        #expect(throws: StorageError.self) { try SQLiteStore.backUp(databaseAt: path, to: copy) }
        #expect(throws: StorageError.self) { try SQLiteStore.backUp(databaseAt: path + ".missing", to: copy + ".2") }
    }

    @Test func aRestoreEndsEveryGrantAndKeepsWhatIsSpent() throws {
        let store = try SQLiteStore.inMemory()
        defer { store.close() }
        let now = StoreSamples.now
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let sessions = [StoreSamples.session(1, owner: 1), StoreSamples.session(2, owner: 2)]
        for session in sessions { try store.seedSession(session) }
        let spent = StoreSamples.spentChallenge(7)
        let outstanding = StoreSamples.challenge(1, userID: StoreSamples.userID(1))
        try store.insertChallenge(spent)
        try store.insertChallenge(outstanding)
        let grant = OAuthGrantRecord(
            id: [UInt8](repeating: 0x6A, count: 16),
            clientID: "client",
            userID: StoreSamples.userID(1),
            sessionID: sessions[0].id,
            scope: "openid",
            authenticatedAt: now,
            authenticationMethods: "pop",
            createdAt: now,
            expiresAt: now.addingTimeInterval(86_400)
        )
        let refreshToken = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF1, count: 32), grantID: grant.id, createdAt: now)
        let link = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE1, count: 32),
            userID: StoreSamples.userID(2),
            createdAt: now,
            expiresAt: now.addingTimeInterval(60)
        )
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertOAuthGrant(grant)
            try transaction.insertRefreshToken(refreshToken)
            try transaction.insertEnrollmentToken(link)
        }

        var described: [[UInt8]] = []
        let ended = try store.endGrantsAfterRestore(now: now) { session in
            described.append(session.id)
            return StoreSamples.event(described.count, owner: session.userID.last, type: "session.revoked")
        }
        #expect(ended == RestoreRevocations(sessions: 2, oauthGrants: 1, enrollmentLinks: 1, challenges: 1))
        #expect(Set(described) == Set(sessions.map(\.id)))
        #expect(try store.events(after: 0, limit: 10).map(\.type) == ["session.revoked", "session.revoked"])
        for session in sessions { #expect(try store.session(tokenHash: session.tokenHash, now: now) == nil) }
        try store.transaction { transaction throws(StorageError) in
            #expect(try transaction.oauthGrant(id: grant.id) == nil)
            #expect(try transaction.refreshToken(hash: refreshToken.tokenHash) == nil)
            #expect(try transaction.enrollmentToken(hash: link.tokenHash) == nil)
        }
        #expect(try store.takeChallenge(outstanding.challenge, now: now) == .unknown)
        // The spent challenge stays spent.
        #expect(try store.takeChallenge(spent.challenge, now: now) != .unknown)
    }
}
