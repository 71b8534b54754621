import CryptoCore
import Foundation
import StorageSQLite
import TestSupport
import Testing

/// `passkeyd keys`: list and rotate a deployment's signing keys (its SQLite file and server secret here; PostgreSQL in
/// `MultiNodeTests`), and make backend keys whose line verifies against the key.
@Suite struct KeysCommandTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let result = try ChildProcess.run(try ServeProcess.executable(), ["keys"] + arguments)
        return (result.status, String(decoding: result.output, as: UTF8.self), result.errorOutput)
    }

    @Test func aBackendKeyAndTheLineThatNamesItsHash() throws {
        let result = try Self.run(["backend-key", "orders-api"])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let key = try #require(lines.first { !$0.contains(" ") && $0.count == 43 })
        let entry = try #require(lines.first { $0.hasPrefix("{") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: String])
        #expect(object["name"] == "orders-api")
        #expect(object["keySHA256"] == Hex.encode(DigestAlgorithm.sha256.hash(Array(key.utf8))))
        #expect(try Self.run(["backend-key", "orders-api"]).output != result.output, "a new random key each time")
        #expect(try Self.run(["backend-key"]).status == 2)
        #expect(try Self.run(["backend-key", "a b"]).status == 2)
        #expect(try Self.run(["backend-key", "a", "b"]).status == 2)
        #expect(try Self.run(["nonsense"]).status == 2)
        #expect(try Self.run(["rotate", "--soon"]).errors.contains("unknown option --soon"))
    }

    @Test func listAndRotateTheKeysOfADeployment() throws {
        let folder = try TemporaryFolder()
        let configuration = folder.path + "/passkeyd.json"
        try Data(#"{"relyingParty": {"id": "example.com"}, "dataDirectory": "\#(folder.path)/data", "www": null}"#.utf8)
            .write(to: URL(fileURLWithPath: configuration))
        // The first listing makes the server secret and finds no key; a server (here: a rotation) makes them.
        let empty = try Self.run(["list", "--config", configuration])
        #expect(empty.status == 0, "\(empty.errors)")
        #expect(empty.output.split(separator: "\n").count == 1, "only the heading: \(empty.output)")
        let rotated = try Self.run(["rotate", "--config", configuration, "--immediately"])
        #expect(rotated.status == 0, "\(rotated.errors)")
        #expect(rotated.output.contains("signing"))
        let scheduled = try Self.run(["rotate", "--config=\(configuration)"])
        #expect(scheduled.status == 0, "\(scheduled.errors)")
        let listed = try Self.run(["list", "--config", configuration]).output
        #expect(listed.contains(" pending "), "\(listed)")
        #expect(listed.contains(" signing "), "\(listed)")
        #expect(listed.split(separator: "\n").count == 3, "\(listed)")
        // `revoke` withdraws the signing key at once; the pending one signs in its place.
        let signing = try #require(listed.split(separator: "\n").first { $0.contains(" signing ") }?.split(separator: " ").first)
        let revoked = try Self.run(["revoke", String(signing), "--config", configuration])
        #expect(revoked.status == 0, "\(revoked.errors)")
        #expect(revoked.output.contains("promoted the standby") && revoked.output.contains("withdrawn \(signing)"), "\(revoked.output)")
        let afterRevocation = try Self.run(["list", "--config", configuration]).output
        #expect(!afterRevocation.contains(String(signing)) && afterRevocation.contains(" signing "), "\(afterRevocation)")
        #expect(try Self.run(["revoke", "no-such-kid", "--config", configuration]).status == 1)
        // A kid made before kids stopped starting with '-' is revoked after `--`.
        let dashed = try Self.run(["revoke", "--config", configuration, "--", "--c6Hz0BOfGbvfFy"])
        #expect(dashed.status == 1 && dashed.errors.contains("no signing key has the kid --c6Hz0BOfGbvfFy"), "\(dashed.errors)")
        #expect(try Self.run(["revoke", "--config", configuration]).status == 1)
        // The keys are sealed: the database holds no private key in the clear.
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path + "/data") where file.hasPrefix("passkeyd.sqlite") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/data/" + file))
            #expect(bytes.range(of: Data("PRIVATE KEY".utf8)) == nil, "\(file)")
        }
        #expect(try Self.run(["list", "--config", folder.path + "/missing.json"]).status == 2)
    }
}
