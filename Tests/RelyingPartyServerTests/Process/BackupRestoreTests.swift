import CryptoCore
import Foundation
import RelyingPartyServer
import StorageSQLite
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd backup` and `passkeyd restore` as real processes: the modes and the manifest of a backup, each refusal
/// of a restore (a running server, a database in place, a changed file, a newer schema), the lock both ways, the
/// grants a restore ends, and an older release's store migrated.
@Suite(.serialized) struct BackupRestoreTests {
    /// Challenges live 10 s, so that a restore holds the data folder 10 s at most.
    static let shortChallenges = #""challenges": {"lifetimeSeconds": 10}"#

    static func passkeyd(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(try ServeProcess.executable(), arguments)
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func aBackupIsPrivateAndWholeAndRestoresOnlyOntoAStoppedNode() throws {
        let folder = try TemporaryFolder()
        let (data, configuration, backup) = (folder.path + "/data", folder.path + "/passkeyd.json", folder.path + "/backup")
        // The restore below holds the folder 20 s: time for a server to try to start meanwhile, however loaded the machine.
        let server = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: #""challenges": {"lifetimeSeconds": 20}"#)
        let client = PasskeyClient(CurlTransport(port: server.port))
        let alice = try client.register("alice")

        let made = try Self.passkeyd(["backup", backup, "--config", configuration])
        #expect(made.status == 0, "\(made.errorOutput)")
        #expect(Self.mode(backup) == 0o700)
        let manifest = try #require(BackupManifest(json: Array(try Data(contentsOf: URL(fileURLWithPath: backup + "/manifest.json")))))
        #expect(manifest.driver == "sqlite" && manifest.schemaVersion == SQLiteStore.latestSchemaVersion && manifest.release == "0.1.0")
        #expect(Set(manifest.files.map(\.name)).isSuperset(of: ["passkeyd.sqlite", "server-secret", "tls-private-key.pem"]))
        for name in manifest.files.map(\.name) + ["manifest.json"] { #expect(Self.mode(backup + "/" + name) == 0o600, "\(name)") }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: backup + "/server-secret")) == Data(contentsOf: URL(fileURLWithPath: data + "/server-secret"))
        )
        // A second backup into the same folder would mix two: refused.
        #expect(try Self.passkeyd(["backup", backup, "--config", configuration]).status == 1)

        let whileServing = try Self.passkeyd(["restore", backup, "--config", configuration, "--replace"])
        #expect(whileServing.status == 1 && whileServing.errorOutput.contains("holds the data folder"), "\(whileServing.errorOutput)")
        #expect(server.terminate() == 0)

        let withoutReplace = try Self.passkeyd(["restore", backup, "--config", configuration])
        #expect(withoutReplace.status == 1 && withoutReplace.errorOutput.contains("pass --replace"), "\(withoutReplace.errorOutput)")

        // One changed byte in a copied secret: refused before anything is written.
        let tampered = folder.path + "/tampered"
        try FileManager.default.copyItem(atPath: backup, toPath: tampered)
        var secret = Array(try Data(contentsOf: URL(fileURLWithPath: tampered + "/server-secret")))
        secret[0] ^= 1
        try Data(secret).write(to: URL(fileURLWithPath: tampered + "/server-secret"))
        let changed = try Self.passkeyd(["restore", tampered, "--config", configuration, "--replace"])
        #expect(changed.status == 1 && changed.errorOutput.contains("server-secret is not the file the manifest names"), "\(changed.errorOutput)")

        // A schema newer than this build's: refused.
        let newer = folder.path + "/newer"
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        let newerManifest = BackupManifest(
            release: "9.0.0",
            driver: "sqlite",
            schemaVersion: SQLiteStore.latestSchemaVersion + 1,
            createdAt: manifest.createdAt,
            files: manifest.files
        )
        try Data(newerManifest.json).write(to: URL(fileURLWithPath: newer + "/manifest.json"))
        let tooNew = try Self.passkeyd(["restore", newer, "--config", configuration, "--replace"])
        #expect(tooNew.status == 1 && tooNew.errorOutput.contains("is newer than version"), "\(tooNew.errorOutput)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: data)).contains { $0.hasPrefix("before-restore-") })

        // The restore holds the folder while it waits out the challenges: a server does not start meanwhile.
        let restoreOutput = folder.path + "/restore.out"
        let restoring = try SpawnedProcess(
            try ServeProcess.executable(),
            ["restore", backup, "--config", configuration, "--replace"],
            standardOutput: .file(restoreOutput),
            standardError: .file(restoreOutput)
        )
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !((try? String(contentsOfFile: restoreOutput, encoding: .utf8)) ?? "").contains("holding the data folder") {
            usleep(50_000)
        }
        let blockedLog = folder.path + "/blocked.log"
        let blocked = try SpawnedProcess(try ServeProcess.executable(), ["serve", "--config", configuration], standardError: .file(blockedLog))
        let stopBy = Date().addingTimeInterval(10)
        while blocked.isRunning, Date() < stopBy { usleep(50_000) }
        if blocked.isRunning {
            kill(blocked.processIdentifier, SIGKILL)
            blocked.waitUntilExit()
            Issue.record("serve started while the restore held the data folder")
        }
        let blockedText = (try? String(contentsOfFile: blockedLog, encoding: .utf8)) ?? ""
        #expect(blocked.terminationStatus == 1 && blockedText.contains("a restore (passkeyd restore) holds the data folder"), "\(blockedText)")
        restoring.waitUntilExit()
        let restoreText = (try? String(contentsOfFile: restoreOutput, encoding: .utf8)) ?? ""
        #expect(restoring.terminationStatus == 0, "\(restoreText)")
        #expect(restoreText.contains("ended 1 sessions"), "\(restoreText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).contains { $0.hasPrefix("before-restore-") })
        #expect(Self.mode(data + "/passkeyd.sqlite") == 0o600 && Self.mode(data + "/server-secret") == 0o600)

        let restored = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: Self.shortChallenges)
        let again = PasskeyClient(CurlTransport(port: restored.port))
        // The session the backup held was ended (it may have been signed out since); the passkey signs in.
        #expect(try again.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 401)
        #expect(try again.signIn(alice.credential, username: "alice", .init(signCount: 1)).status == 200)
    }

    /// A backup of release 0.1.0's data folder (the upgrade fixture) restores into this build: migrated on restore.
    @Test func anOlderSchemaIsMigrated() throws {
        let folder = try TemporaryFolder()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("UpgradeFixtures/0.1.0/sqlite").path
        let backup = folder.path + "/backup"
        try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: false)
        var files: [BackupManifest.File] = []
        for name in ["passkeyd.sqlite", "server-secret", "apple-refresh-token-key"] {
            let content = Array(try Data(contentsOf: URL(fileURLWithPath: fixture + "/" + name)))
            try Data(content).write(to: URL(fileURLWithPath: backup + "/" + name))
            files.append(BackupManifest.File(name: name, content: content))
        }
        let version = try SQLiteStore.schemaVersion(databaseAt: backup + "/passkeyd.sqlite")
        #expect(version < SQLiteStore.latestSchemaVersion)
        let manifest = BackupManifest(release: "0.1.0", driver: "sqlite", schemaVersion: version, createdAt: Date(), files: files)
        try Data(manifest.json).write(to: URL(fileURLWithPath: backup + "/manifest.json"))
        let configuration = folder.path + "/passkeyd.json"
        try Data(#"{"dataDirectory": "\#(folder.path)/data", "challenges": {"lifetimeSeconds": 10}}"#.utf8)
            .write(to: URL(fileURLWithPath: configuration))
        let result = try Self.passkeyd(["restore", backup, "--config", configuration])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try SQLiteStore.schemaVersion(databaseAt: folder.path + "/data/passkeyd.sqlite") == SQLiteStore.latestSchemaVersion)
        let restoredKey = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/data/apple-refresh-token-key"))
        #expect(files[2].matches(Array(restoredKey)))
    }
}
