import CryptoCore
import Foundation
import Storage
import StoragePostgres
import StorageSQLite
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Issue 45: the stores that every release wrote (`Tests/UpgradeFixtures/<release>/{sqlite,postgres}`, committed and
/// never edited or deleted) open under this code with nothing lost: each passkey still signs in, each live session
/// still opens `/me`, each access token still verifies until it expires and not after, spent recovery codes stay spent
/// and the others work, Apple refresh tokens still decrypt (they are revoked with Apple as they were issued), the
/// OpenID provider's grants still refresh, pending webhook deliveries are sent and dead ones stay dead.
///
/// `PASSKEYD_WRITE_UPGRADE_FIXTURES=<release> swift test --filter UpgradeFixtureWriting` writes a new release's
/// fixtures (once, with the code of that release; it refuses to replace a folder).
@Suite("Upgrade fixtures", .serialized, PostgresClusterScope())
struct UpgradeFixtureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(
            "UpgradeFixtures"
        ).path

    /// The release whose fixtures `UpgradeFixtureWriting` writes, when one is named.
    static let releaseToWrite = ProcessInfo.processInfo.environment["PASSKEYD_WRITE_UPGRADE_FIXTURES"]

    /// Every release that left fixtures, oldest first.
    static var releases: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted { $0.compare($1, options: .numeric) == .orderedAscending }
    }

    @Test func theFirstReleaseLeftFixturesForBothDrivers() {
        #expect(Self.releases.first == "0.1.0")
        for release in Self.releases {
            for file in ["sqlite/manifest.json", "sqlite/passkeyd.sqlite", "sqlite/server-secret", "postgres/manifest.json", "postgres/dump.sql"] {
                #expect(FileManager.default.fileExists(atPath: "\(Self.root)/\(release)/\(file)"), "\(release)/\(file)")
            }
        }
    }

    @Test(arguments: releases)
    func aSQLiteDataFolderOpensWithNothingLost(release: String) throws {
        let source = "\(Self.root)/\(release)/sqlite"
        let folder = try TemporaryFolder()
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where name != "manifest.json" {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder.path + "/" + name)
        }
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        defer { store.close() }
        try Self.check(
            UpgradeManifest.load(source + "/manifest.json"),
            store: store,
            serverSecret: try Self.secretFile(folder.path + "/" + UpgradeNode.serverSecretName),
            refreshTokenKey: try Self.secretFile(folder.path + "/" + UpgradeNode.appleRefreshTokenKeyName)
        )
    }

    @Test(arguments: releases)
    func aPostgresDumpLoadsWithNothingLost(release: String) throws {
        let cluster = try PostgresClusterScope.current()
        let database = try cluster.createDatabase()
        try cluster.load(script: String(contentsOfFile: "\(Self.root)/\(release)/postgres/dump.sql", encoding: .utf8), database: database)
        let store = try PostgresStore(connectionString: cluster.connectionString(database: database), poolSize: 4)
        defer { store.close() }
        let proposal = SystemRandom().bytes(count: 32)
        let serverSecret = try store.sharedSecret(named: UpgradeNode.serverSecretName, proposing: proposal)
        let refreshTokenKey = try store.sharedSecret(named: UpgradeNode.appleRefreshTokenKeyName, proposing: proposal)
        #expect(serverSecret != proposal && refreshTokenKey != proposal, "the secrets come from the dump, not made anew")
        try Self.check(
            UpgradeManifest.load("\(Self.root)/\(release)/postgres/manifest.json"),
            store: store,
            serverSecret: serverSecret,
            refreshTokenKey: refreshTokenKey
        )
    }

    static func secretFile(_ path: String) throws -> [UInt8] {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count == 32 else { throw TransportFailure("\(path) holds \(bytes.count) bytes, not 32") }
        return bytes
    }

    /// Opens `store` a minute after the fixture was written and checks everything `manifest` kept.
    static func check(_ manifest: UpgradeManifest, store: any PasskeyStore, serverSecret: [UInt8], refreshTokenKey: [UInt8]) throws {
        let clock = ManualClock(Date(timeIntervalSince1970: manifest.writtenAt + 60))
        let node = try UpgradeNode(store: store, clock: clock, serverSecret: serverSecret, refreshTokenKey: refreshTokenKey, receiverStatus: 200)
        let context = "\(manifest.release) on \(manifest.driver)"

        for account in manifest.passkeyAccounts {
            for token in account.sessionTokens {
                let me = try node.me(token)
                #expect(me.status == 200 && Self.user(me)?["id"] as? String == account.userID, "\(context): a session of \(account.username)")
            }
            for accessToken in account.accessTokens {
                let reply = try node.introspect(accessToken.token)
                #expect(reply.object["active"] as? Bool == true, "\(context): an access token of \(account.username): \(reply.text)")
            }
            // Names stored before skeletons existed got theirs in the migration (SQLite 18, PostgreSQL 17).
            let lookAlike = try store.transaction { transaction throws(StorageError) in
                try transaction.user(nameSkeleton: UserRecord.nameSkeleton(of: account.username.uppercased()))
            }
            #expect(lookAlike.map { Base64URL.encode($0.id) } == account.userID, "\(context): \(account.username)'s skeleton")
            let signIn = try node.client.signIn(try Self.credential(account), AssertionOptions(signCount: account.credential.signCount + 1))
            #expect(
                signIn.status == 200 && Self.user(signIn)?["id"] as? String == account.userID,
                "\(context): \(account.username) signs in: \(signIn.text)"
            )
        }

        let recovery = manifest.recovery
        #expect(try node.recover(recovery.username, code: recovery.used).errorCode == "recovery_code_invalid", "\(context): a spent code")
        let recovered = try node.recover(recovery.username, code: try #require(recovery.unused.first))
        #expect(recovered.status == 200, "\(context): an unspent recovery code: \(recovered.text)")

        let grant = manifest.openID
        let userInfo = try node.userInfo(grant.accessToken.token)
        #expect(userInfo.status == 200 && userInfo.object["sub"] is String, "\(context): the OpenID access token: \(userInfo.text)")
        let refreshed = try node.token([("grant_type", "refresh_token"), ("refresh_token", grant.refreshToken), ("client_id", grant.clientID)])
        #expect(refreshed.status == 200 && refreshed.object["access_token"] is String, "\(context): the OpenID grant refreshes: \(refreshed.text)")

        try checkApple(manifest, node: node, context: context)
        try checkWebhooks(manifest, node: node, context: context)

        // Every access token issued before the upgrade verifies until it expires, and not after.
        let tokens = manifest.passkeyAccounts.flatMap(\.accessTokens)
        let expiry = try #require((tokens + [grant.accessToken]).map(\.expiresAt).max())
        clock.advance(by: expiry + 1 - clock.now.timeIntervalSince1970)
        for token in tokens {
            #expect(try node.introspect(token.token).object["active"] as? Bool == false, "\(context): an expired access token")
        }
        #expect(try node.userInfo(grant.accessToken.token).status == 401, "\(context): the expired OpenID access token")
    }

    /// Each Apple account's session opens `/me`, the person signs in again into the same account, and its refresh
    /// token still decrypts: Apple is asked to revoke exactly the token it issued when the identity goes.
    static func checkApple(_ manifest: UpgradeManifest, node: UpgradeNode, context: String) throws {
        for account in manifest.appleAccounts {
            let me = try node.me(account.sessionToken)
            #expect(me.status == 200 && Self.user(me)?["id"] as? String == account.userID, "\(context): the Apple session of \(account.subject)")
            let again = try node.apple.signInFresh(subject: account.subject)
            #expect(Self.user(again)?["id"] as? String == account.userID, "\(context): \(account.subject) signs in again to the same account")
            if account.linkedTo == nil {
                // The person deletes the account: its Apple refresh token is revoked with Apple.
                let token = try #require(again.object["token"] as? String)
                let deleted = try node.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token))
                #expect(deleted.status == 200 || deleted.status == 204, "\(context): DELETE /me: \(deleted.text)")
            } else {
                // Apple says the identity was deleted: its refresh token is revoked, the passkey account stays.
                #expect(try node.apple.notify(AppleFixture.event("account-delete", subject: account.subject)).status == 200)
            }
        }
        node.server.processDueAppleWork()
        let revoked = Set(node.apple.standIn.calls(to: "/auth/revoke").compactMap { $0.form["token"] })
        #expect(revoked == Set(manifest.appleAccounts.map(\.refreshToken)), "\(context): the stored refresh tokens decrypt")
    }

    /// The deliveries left pending are sent once the receiver takes them, with their `webhook-id`s (at least once, as
    /// Standard Webhooks promises: a receiver drops repeats by that ID), which stay `evt_<number>` across the upgrade;
    /// the dead ones stay dead.
    static func checkWebhooks(_ manifest: UpgradeManifest, node: UpgradeNode, context: String) throws {
        try node.server.startWebhooks()
        defer { node.server.stopWebhooks() }
        node.server.wakeWebhooks()
        try UpgradeNode.wait("\(context): the pending deliveries") { Set(manifest.webhooks.pending).isSubset(of: Set(node.receiver.received)) }
        // Sent under the IDs they were first sent with (`evt_<number>`, what a receiver deduplicates by); the events of
        // this release (the sign-ins above) under UUIDs, never under a number.
        let legacy = manifest.webhooks.pending.filter { $0.hasPrefix("evt_") && Int64($0.dropFirst(4)) != nil }
        #expect(legacy.count == manifest.webhooks.pending.count && !legacy.isEmpty, "\(context): \(manifest.webhooks.pending)")
        try UpgradeNode.wait("\(context): a delivery of this release") {
            node.receiver.received.contains { $0.hasPrefix("evt_") && UUID(canonicalText: String($0.dropFirst(4))) != nil }
        }
        let numbered = node.receiver.received.filter { Int64($0.dropFirst(4)) != nil }
        #expect(Set(numbered) == Set(legacy), "\(context): only the 0.1.0 events are sent under numbers")
        #expect(try node.deliveries(.dead, to: manifest.webhooks.deadEndpoint).count >= manifest.webhooks.dead, "\(context): dead stay dead")
    }

    static func credential(_ account: UpgradeManifest.PasskeyAccount) throws -> SoftwareCredential {
        let credential = account.credential
        return try SoftwareCredential(
            algorithm: try #require(COSEAlgorithm(rawValue: credential.algorithm)),
            privateKey: try PrivateKey.fromPEM(credential.privateKeyPEM),
            id: try PasskeyClient.bytes(credential.id),
            userHandle: try PasskeyClient.bytes(account.userID)
        )
    }

    static func user(_ reply: ServerReply) -> [String: Any]? {
        reply.object["user"] as? [String: Any]
    }
}

/// Writes a release's upgrade fixtures; runs only when `PASSKEYD_WRITE_UPGRADE_FIXTURES` names the release.
@Suite("Upgrade fixture writing", .serialized, .enabled(if: UpgradeFixtureTests.releaseToWrite != nil), PostgresClusterScope())
struct UpgradeFixtureWriting {
    static let release = UpgradeFixtureTests.releaseToWrite
    /// When the fixtures are written, on the manual clock: 2026-12-05T12:00:00Z.
    static let writtenAt = Date(timeIntervalSince1970: 1_796_472_000)

    static func folder(_ driver: String) throws -> String {
        let folder = "\(UpgradeFixtureTests.root)/\(try #require(release))/\(driver)"
        guard !FileManager.default.fileExists(atPath: folder) else { throw TransportFailure("\(folder) exists: fixtures are never replaced") }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func commit() throws -> String {
        let result = try ChildProcess.run("/usr/bin/git", ["-C", UpgradeFixtureTests.root, "rev-parse", "HEAD"])
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func sqlite() throws {
        let folder = try Self.folder("sqlite")
        let random = SystemRandom()
        let secrets = [UpgradeNode.serverSecretName: random.bytes(count: 32), UpgradeNode.appleRefreshTokenKeyName: random.bytes(count: 32)]
        for (name, bytes) in secrets {
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
        }
        let store = try SQLiteStore(path: folder + "/passkeyd.sqlite")
        let node = try UpgradeNode(
            store: store,
            clock: ManualClock(Self.writtenAt),
            serverSecret: secrets[UpgradeNode.serverSecretName]!,
            refreshTokenKey: secrets[UpgradeNode.appleRefreshTokenKeyName]!,
            receiverStatus: 503
        )
        let manifest = try UpgradeFixtureWriter(node: node).write(release: try #require(Self.release), commit: try Self.commit(), driver: "sqlite")
        store.close()
        // The write-ahead log folded into the file, so that the fixture is one database file (Python's sqlite3 module:
        // the last connection to close checkpoints and removes the log).
        let checkpoint = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()"
        #expect(try ChildProcess.run("/usr/bin/python3", ["-c", checkpoint, folder + "/passkeyd.sqlite"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: folder + "/passkeyd.sqlite-wal"))
        try manifest.write(folder + "/manifest.json")
    }

    @Test func postgres() throws {
        let folder = try Self.folder("postgres")
        let cluster = try PostgresClusterScope.current()
        let database = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: database), poolSize: 4)
        let random = SystemRandom()
        let node = try UpgradeNode(
            store: store,
            clock: ManualClock(Self.writtenAt),
            serverSecret: try store.sharedSecret(named: UpgradeNode.serverSecretName, proposing: random.bytes(count: 32)),
            refreshTokenKey: try store.sharedSecret(named: UpgradeNode.appleRefreshTokenKeyName, proposing: random.bytes(count: 32)),
            receiverStatus: 503
        )
        let manifest = try UpgradeFixtureWriter(node: node).write(release: try #require(Self.release), commit: try Self.commit(), driver: "postgres")
        store.close()
        try cluster.dump(database: database).write(toFile: folder + "/dump.sql", atomically: true, encoding: .utf8)
        try manifest.write(folder + "/manifest.json")
    }
}
