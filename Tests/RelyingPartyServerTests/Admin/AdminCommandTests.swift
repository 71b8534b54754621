import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

/// `passkeyd admin …` and `passkeyd keys admin-key` as an operator runs them: the built binary on a configuration and
/// a SQLite database, with the server stopped; `--json` answers and exit statuses.
struct AdminCommandTests {
    static func json(_ result: ChildProcess.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: result.output)) as? [String: Any] ?? [:]
    }

    @Test func usersAreManagedOnTheConfiguredStoreWithJSONAndExitStatuses() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let configurationPath = folder.path + "/passkeyd.json"
        try Data(#"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "dataDirectory": "\#(data)"}"#.utf8)
            .write(to: URL(fileURLWithPath: configurationPath))
        let executable = try ServeProcess.executable()
        func admin(_ arguments: String...) throws -> ChildProcess.Result {
            try ChildProcess.run(executable, ["admin"] + arguments + ["--config", configurationPath])
        }

        let created = try admin("users", "create", "--username", "invitee", "--email", "i@example.com", "--email-verified", "--json")
        #expect(created.status == 0, "\(created.errorOutput)")
        let user = try #require(Self.json(created)["user"] as? [String: Any])
        let id = try #require(user["id"] as? String)
        #expect(user["emailVerified"] as? Bool == true)

        let listed = try admin("users", "list", "--query", "i@example.com", "--json")
        #expect(listed.status == 0)
        #expect((Self.json(listed)["users"] as? [[String: Any]])?.first?["matchedBy"] as? String == "email")
        let text = try admin("users", "list", "--query", "inv")
        #expect(text.status == 0 && String(decoding: text.output, as: UTF8.self).contains("\(id)  invitee  i@example.com  (username)"))

        let updated = try admin("users", "update", id, "--display-name", "Ivy", "--json")
        #expect(updated.status == 0 && (Self.json(updated)["user"] as? [String: Any])?["displayName"] as? String == "Ivy")
        let shown = try admin("users", "show", id, "--json")
        #expect(shown.status == 0 && (Self.json(shown)["passkeys"] as? [Any])?.isEmpty == true)
        #expect(try admin("users", "revoke-sessions", id, "--json").status == 0)
        let link = try admin("users", "enroll-link", id, "--json")
        #expect(link.status == 0 && (Self.json(link)["url"] as? String)?.hasPrefix("https://example.com/enroll?token=") == true)
        #expect(Self.json(link)["expiresAt"] is String)
        let linkText = String(decoding: try admin("users", "enroll-link", id).output, as: UTF8.self)
        #expect(linkText.hasPrefix("https://example.com/enroll?token=") && linkText.contains("expires "))

        let other = try admin("users", "create", "--username", "guest", "--json")
        let otherID = try #require((Self.json(other)["user"] as? [String: Any])?["id"] as? String)
        let merged = try admin("users", "merge", id, "--from", otherID, "--json")
        #expect(merged.status == 0 && (Self.json(merged)["user"] as? [String: Any])?["id"] as? String == id, "\(merged.errorOutput)")
        #expect(try admin("users", "show", otherID, "--json").status == 1, "the merged account is gone")
        let again = try admin("users", "merge", id, "--from", otherID, "--json")
        #expect(again.status == 1 && Self.json(again)["error"] as? String == "user_not_found")

        let taken = try admin("users", "create", "--username", "invitee", "--json")
        #expect(taken.status == 1 && Self.json(taken)["error"] as? String == "username_taken")
        #expect(taken.errorOutput.contains("username_taken"))
        #expect(try admin("users", "delete", id).status == 0)
        let gone = try admin("users", "show", id, "--json")
        #expect(gone.status == 1 && Self.json(gone)["error"] as? String == "user_not_found")
        #expect(try admin("users", "enroll-link", id, "--json").status == 1, "no link for a deleted account")

        // Bad command lines: 2, with the usage.
        for arguments in [["users", "show"], ["users", "frobnicate"], ["users", "list", "--limit", "many"], ["users", "show", id, "--colour"]] {
            let bad = try ChildProcess.run(executable, ["admin"] + arguments + ["--config", configurationPath])
            #expect(bad.status == 2, "\(arguments)")
            #expect(bad.errorOutput.contains("usage: passkeyd admin"), "\(arguments)")
        }

        let store = try SQLiteStore(path: data + "/passkeyd.sqlite")
        defer { store.close() }
        #expect(
            try store.allEvents().map(\.type) == [
                "user.created", "user.updated", "enrollment_link.created", "enrollment_link.created", "user.created", "user.merged",
                "user.deleted",
            ]
        )
    }

    @Test func exportImportAndFirebaseImportOnTheConfiguredStores() throws {
        let folder = try TemporaryFolder()
        let executable = try ServeProcess.executable()
        func configuration(_ name: String) throws -> String {
            let path = folder.path + "/\(name).json"
            try Data(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "dataDirectory": "\#(folder.path)/\#(name)"}"#.utf8
            )
            .write(to: URL(fileURLWithPath: path))
            return path
        }
        let source = try configuration("source")
        let target = try configuration("target")
        func admin(_ config: String, _ arguments: String...) throws -> ChildProcess.Result {
            try ChildProcess.run(executable, ["admin"] + arguments + ["--config", config])
        }
        #expect(try admin(source, "users", "create", "--username", "invitee", "--email", "i@example.com").status == 0)
        let printed = try admin(source, "export")
        #expect(printed.status == 0)
        let lines = String(decoding: printed.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains(#""type":"passkeyd.export""#) && lines[1].contains(#""username":"invitee""#))
        let file = folder.path + "/export.ndjson"
        #expect(try admin(source, "export", "--output", file).status == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(
            written.last == UInt8(ascii: "\n")
                && written.split(separator: UInt8(ascii: "\n")).dropFirst() == printed.output.split(separator: UInt8(ascii: "\n")).dropFirst()
        )

        let imported = try admin(target, "import", file, "--json")
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect((Self.json(imported)["users"] as? [String: Int])?["created"] == 1)
        let again = try admin(target, "import", file)
        #expect(String(decoding: again.output, as: UTF8.self).hasPrefix("users: 0 created, 0 updated, 1 unchanged"))
        #expect(
            try admin(target, "export").output.split(separator: UInt8(ascii: "\n")).dropFirst()
                == printed.output.split(separator: UInt8(ascii: "\n")).dropFirst()
        )

        let firebase = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Fixtures/firebase-users.json"
        ).path
        let fromFirebase = try admin(target, "import", "--firebase", firebase)
        #expect(fromFirebase.status == 0, "\(fromFirebase.errorOutput)")
        let report = String(decoding: fromFirebase.output, as: UTF8.self)
        #expect(
            report.contains("users: 3 created") && report.contains("identities: 2 created")
                && report.contains("skipped: 3 (without Sign in with Apple or Google: none 1, password 1; disabled: 1)")
        )

        try Data("not an export\n".utf8).write(to: URL(fileURLWithPath: folder.path + "/bad.ndjson"))
        let bad = try admin(target, "import", folder.path + "/bad.ndjson", "--json")
        #expect(bad.status == 1 && Self.json(bad)["error"] as? String == "import_invalid" && Self.json(bad)["line"] as? Int == 1)
        #expect(try admin(target, "import", folder.path + "/missing.ndjson").status == 2)
        #expect(try admin(target, "import").status == 2)
    }

    @Test func anAdminKeyIsPrintedOnceWithItsHash() throws {
        let executable = try ServeProcess.executable()
        let result = try ChildProcess.run(executable, ["keys", "admin-key", "ops-console"])
        #expect(result.status == 0)
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.count == 4)
        let key = lines[1]
        #expect(Base64URL.decode(key)?.count == 32)
        #expect(lines[3] == #"{"name": "ops-console", "keySHA256": "\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(key.utf8))))"}"#)
        #expect(try ChildProcess.run(executable, ["keys", "admin-key"]).status == 2)
        #expect(try ChildProcess.run(executable, ["keys", "admin-key", "bad name!"]).status == 2)
    }

    /// Issue 36: the admin commands are built by the same composition root as `serve`, so every configuration that
    /// `serve` accepts works for them, one with webhooks and an OpenID provider included (they exited 2, "webhooks: need
    /// an outbound HTTP client"). Nothing is sent from the command: it starts no worker.
    @Test func theAdminCommandsWorkWithEveryConfiguration() throws {
        let folder = try TemporaryFolder()
        let configurationPath = folder.path + "/passkeyd.json"
        let configuration = """
            {"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "dataDirectory": "\(folder.path)/data",
             "webhooks": [{"url": "http://127.0.0.1:9/hooks", "secret": "\(WebhookReceiver.secret)"}],
             "oidc": {"clients": [{"id": "ios", "name": "iOS app", "type": "public", "redirectURIs": ["com.example.app:/callback"]}]}}
            """
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        let executable = try ServeProcess.executable()
        let created = try ChildProcess.run(executable, ["admin", "users", "create", "--username", "wendy", "--json", "--config", configurationPath])
        #expect(created.status == 0, "\(created.errorOutput)")
        let listed = try ChildProcess.run(executable, ["admin", "webhooks", "list", "--json", "--config", configurationPath])
        #expect(listed.status == 0 && Self.json(listed)["deliveries"] is [Any], "\(listed.errorOutput)")
    }
}
