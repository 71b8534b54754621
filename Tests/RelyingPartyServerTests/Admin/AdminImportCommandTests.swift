import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

/// `passkeyd admin import` of files larger than a batch (issue 43 item 3): read a piece at a time, written in batches
/// of `--batch-size` users, progress on standard error; an import killed or refused half-way is run again and writes
/// only the rest, each user's `user.created` event once.
struct AdminImportCommandTests {
    static let header = #"{"type":"passkeyd.export","version":1,"relyingPartyId":"example.com","exportedAt":"2026-03-01T12:00:00.000Z"}"#

    /// passkeyd's export of `count` users named `user<n>`; the line of `refused` (if any) has a username the rules refuse.
    static func export(_ count: Int, refused: Int? = nil) -> Data {
        var text = header + "\n"
        for number in 1...count {
            let id = Data("user-\(number)".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            let token = String(format: "00000000-0000-4000-8000-%012d", number)
            let name = number == refused ? "" : "user\(number)"
            text +=
                #"{"type":"user","id":"\#(id)","username":"\#(name)","displayName":"User \#(number)","displayNameIsDefault":false,"#
                + #""appAccountToken":"\#(token)","emailVerified":false,"createdAt":"2026-03-01T12:00:00.000Z"}"# + "\n"
        }
        return Data(text.utf8)
    }

    /// A `firebase auth:export` file of `count` users with Sign in with Apple, and one without any provider.
    static func firebase(_ count: Int) -> Data {
        let users = (1...count).map { number in
            #"{"localId": "f\#(number)", "email": "f\#(number)@example.com", "emailVerified": true, "createdAt": "1714557600000","#
                + #" "providerUserInfo": [{"providerId": "apple.com", "rawId": "000\#(number).a"}]}"#
        }
        return Data(("{\"users\": [\n" + (users + [#"{"localId": "nobody"}"#]).joined(separator: ",\n") + "\n]}\n").utf8)
    }

    struct Deployment {
        let folder: TemporaryFolder
        let configuration: String
        let executable: String

        init() throws {
            folder = try TemporaryFolder()
            configuration = folder.path + "/passkeyd.json"
            try Data(#"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "dataDirectory": "\#(folder.path)/data"}"#.utf8)
                .write(to: URL(fileURLWithPath: configuration))
            executable = try ServeProcess.executable()
        }

        func file(_ name: String, _ contents: Data) throws -> String {
            let path = folder.path + "/" + name
            try contents.write(to: URL(fileURLWithPath: path))
            return path
        }

        func importing(_ arguments: String...) throws -> ChildProcess.Result {
            try ChildProcess.run(executable, ["admin", "import"] + arguments + ["--config", configuration, "--json"])
        }

        /// The types of the store's events, by type.
        func eventCounts() throws -> [String: Int] {
            let store = try SQLiteStore(path: folder.path + "/data/passkeyd.sqlite")
            defer { store.close() }
            var counts: [String: Int] = [:]
            var after: Int64 = 0
            while true {
                let page = try store.events(after: after, limit: 10_000)
                for event in page { counts[event.type, default: 0] += 1 }
                guard let last = page.last else { return counts }
                after = last.id
            }
        }
    }

    static func users(_ result: ChildProcess.Result) -> [String: Int] {
        ((try? JSONSerialization.jsonObject(with: result.output)) as? [String: Any])?["users"] as? [String: Int] ?? [:]
    }

    @Test func aRefusedLineKeepsTheBatchesBeforeItAndTheSameCommandImportsTheRest() throws {
        let deployment = try Deployment()
        let refused = try deployment.file("refused.ndjson", Self.export(2_500, refused: 2_201))
        let stopped = try deployment.importing(refused, "--batch-size", "200")
        #expect(stopped.status == 1)
        let answer = (try? JSONSerialization.jsonObject(with: stopped.output)) as? [String: Any]
        #expect(answer?["error"] as? String == "invalid_username" && answer?["line"] as? Int == 2_202, "\(stopped.errorOutput)")
        // Eleven batches of 200 were written before the refused line's batch; that batch and the rest were not.
        #expect(try deployment.eventCounts()["user.created"] == 2_200)
        #expect(
            stopped.errorOutput.contains("2200 users read, 2200 written (2200 created, 0 updated, 0 unchanged), 0 skipped; stopped"),
            "\(stopped.errorOutput)"
        )

        let fixed = try deployment.file("fixed.ndjson", Self.export(2_500))
        let rest = try deployment.importing(fixed, "--batch-size", "200")
        #expect(rest.status == 0, "\(rest.errorOutput)")
        #expect(Self.users(rest) == ["created": 300, "updated": 0, "unchanged": 2_200])
        #expect(try deployment.eventCounts() == ["user.created": 2_500], "each user created once, with one event")
        #expect(!rest.errorOutput.contains("user1"), "no user's data in the progress")
    }

    @Test func anImportKilledHalfWayIsRunAgainWithoutDuplicates() throws {
        let deployment = try Deployment()
        let count = 10_000
        let path = try deployment.file("users.ndjson", Self.export(count))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: deployment.executable)
        process.arguments = ["admin", "import", path, "--batch-size", "100", "--config", deployment.configuration]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Killed at its first progress line (after its first piece of the file): batches written, the rest not yet read.
        var seen = Data()
        let deadline = Date().addingTimeInterval(60)
        while String(decoding: seen, as: UTF8.self).contains("users read") == false, Date() < deadline {
            let piece = errors.fileHandleForReading.availableData
            if piece.isEmpty { break }
            seen += piece
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the import ended before it was killed: \(String(decoding: seen, as: UTF8.self))")
        let written = try deployment.eventCounts()["user.created"] ?? 0
        #expect(written >= 1_000 && written < count && written % 100 == 0, "whole batches only: \(written)")
        #expect(String(decoding: seen, as: UTF8.self).contains("written"))

        let again = try deployment.importing(path, "--batch-size", "1000")
        #expect(again.status == 0, "\(again.errorOutput)")
        #expect(Self.users(again) == ["created": count - written, "updated": 0, "unchanged": written])
        let events = try deployment.eventCounts()
        #expect(events == ["user.created": count], "\(events)")
    }

    @Test func aFirebaseFileIsStreamedUserByUser() throws {
        let deployment = try Deployment()
        let path = try deployment.file("firebase.json", Self.firebase(3_000))
        let result = try deployment.importing("--firebase", path, "--batch-size", "250")
        #expect(result.status == 0, "\(result.errorOutput)")
        let report = (try? JSONSerialization.jsonObject(with: result.output)) as? [String: Any]
        #expect(Self.users(result)["created"] == 3_000)
        #expect((report?["appleIdentities"] as? [String: Int])?["created"] == 3_000)
        #expect((report?["skipped"] as? [String: Any])?["count"] as? Int == 1)
        #expect(
            result.errorOutput.contains("3001 users read, 3000 written (3000 created, 0 updated, 0 unchanged), 1 skipped"),
            "\(result.errorOutput)"
        )
        #expect(try deployment.eventCounts() == ["user.created": 3_000, "apple.linked": 3_000])

        let again = try deployment.importing("--firebase", path)
        #expect(Self.users(again) == ["created": 0, "updated": 0, "unchanged": 3_000])
        #expect(try deployment.eventCounts() == ["user.created": 3_000, "apple.linked": 3_000], "no event twice")

        let truncated = try deployment.file("truncated.json", Self.firebase(10).prefix(300))
        let refusal = try deployment.importing("--firebase", truncated)
        #expect(refusal.status == 1 && refusal.errorOutput.contains("import_invalid"), "\(refusal.errorOutput)")
        #expect(try deployment.importing("--firebase", path, "--batch-size", "0").status == 2)
        #expect(try deployment.importing("--firebase", path, "--supabase", path).status == 2)
        #expect(try deployment.importing("--firebase", deployment.folder.path).status == 2, "not a regular file")
    }
}
