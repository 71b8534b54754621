import Foundation
import RelyingPartyServer
import TestSupport
import Testing

/// Backup and restore on PostgreSQL: `passkeyd backup` writes the manifest only and says to use `pg_dump`; a dump
/// restored with psql into a new database, then `passkeyd restore --postgres-restored`, ends the sessions the dump
/// holds, so that one signed out after the dump stays signed out, and every passkey signs in.
@Suite(.serialized) struct PostgresBackupRestoreTests {
    @Test func aSignOutAfterTheDumpStaysSignedOut() throws {
        let cluster = try PostgresCluster()
        defer { cluster.destroy() }
        let folder = try TemporaryFolder()
        let first = try cluster.createDatabase()
        let members = { (database: String) in
            #""database": {"postgres": "\#(cluster.connectionString(database: database))", "poolSize": 2}, "challenges": {"lifetimeSeconds": 10}"#
        }
        let configuration = folder.path + "/passkeyd.json"
        let node = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: configuration, extraMembers: members(first))
        let client = PasskeyClient(CurlTransport(port: node.port))
        let alice = try client.register("alice")

        let backup = folder.path + "/backup"
        let made = try BackupRestoreTests.passkeyd(["backup", backup, "--config", configuration])
        let said = String(decoding: made.output, as: UTF8.self)
        #expect(made.status == 0 && said.contains("pg_dump") && said.contains("This folder alone restores nothing"), "\(said) \(made.errorOutput)")
        let manifest = try #require(BackupManifest(json: Array(try Data(contentsOf: URL(fileURLWithPath: backup + "/manifest.json")))))
        #expect(manifest.driver == "postgresql" && manifest.schemaVersion == nil)
        #expect(!manifest.files.contains { $0.name == "server-secret" || $0.name == "passkeyd.sqlite" })
        let dump = try cluster.dump(database: first)

        // Signed out after the dump: the dump still holds the session.
        #expect(try client.send("POST", "/logout", headers: PasskeyClient.bearer(alice.token)).status == 200)
        #expect(node.terminate() == 0)
        let second = try cluster.createDatabase()
        try cluster.load(script: dump, database: second)
        let restoredConfiguration = folder.path + "/restored.json"
        try Data("{\(members(second)), \"dataDirectory\": \"\(folder.path)/data\"}".utf8).write(to: URL(fileURLWithPath: restoredConfiguration))
        let refused = try BackupRestoreTests.passkeyd(["restore", backup, "--config", restoredConfiguration])
        #expect(refused.status == 1 && refused.errorOutput.contains("PostgreSQL backup's manifest"), "\(refused.errorOutput)")
        let ended = try BackupRestoreTests.passkeyd(["restore", "--postgres-restored", "--config", restoredConfiguration])
        #expect(ended.status == 0, "\(ended.errorOutput)")
        #expect(String(decoding: ended.output, as: UTF8.self).contains("ended 1 sessions"))
        #expect(
            try cluster.psql(
                "SELECT count(*) FROM events WHERE type = 'session.revoked' AND convert_from(data, 'UTF8') LIKE '%\"reason\":\"restore\"%'",
                database: second
            ) == "1"
        )

        let restored = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: configuration, extraMembers: members(second))
        let again = PasskeyClient(CurlTransport(port: restored.port))
        #expect(try again.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 401)
        #expect(try again.signIn(alice.credential, username: "alice", .init(signCount: 1)).status == 200)
        _ = restored.terminate()
    }
}
