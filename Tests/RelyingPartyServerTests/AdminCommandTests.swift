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
                "user.created", "user.updated", "enrollment_link.created", "enrollment_link.created", "user.deleted",
            ]
        )
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
}
