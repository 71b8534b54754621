import Foundation
import TestSupport
import Testing

/// The built `passkeyd` on bad command lines: each command names the argument at fault with its usage line and keeps
/// its exit status (serve 1, the others 2; serve 2 for a bad `--listen` value); `version` prints the version.
@Suite struct CommandLineTests {
    static func run(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(try ServeProcess.executable(), arguments)
    }

    @Test(arguments: [["version"], ["--version"]])
    func versionIsPrinted(arguments: [String]) throws {
        let result = try Self.run(arguments)
        #expect(result.status == 0)
        let text = String(decoding: result.output, as: UTF8.self)
        #expect(text.wholeMatch(of: /passkeyd [0-9]+\.[0-9]+\.[0-9]+\n/) != nil, "\(text)")
    }

    @Test(
        arguments: [
            (["serve", "--conf", "x.json"], Int32(1), "passkeyd serve: unknown option --conf", "usage: passkeyd serve [--config FILE]"),
            (["serve", "--config"], 1, "passkeyd serve: --config needs a value", "usage: passkeyd serve"),
            (["serve", "--listen", "everywhere"], 2, "passkeyd serve: --listen must be \"host:port\"", "usage: passkeyd serve"),
            (
                ["healthcheck", "--url", "ftp://127.0.0.1/readyz"], 2, "passkeyd healthcheck: --url: http.clientSchemeRefused",
                "usage: passkeyd healthcheck"
            ),
            (["migrate", "--from-sqlite", "a.sqlite"], 2, "passkeyd migrate: --to-postgres is required", "usage: passkeyd migrate"),
            (["verify", "--trust-anchors"], 2, "passkeyd verify: --trust-anchors needs a value", "usage: passkeyd verify"),
            (["verify", "--metadata", "blob.jwt"], 2, "passkeyd verify: --metadata needs --metadata-root", "usage: passkeyd verify"),
            (["verify", "a.json", "b.json"], 2, "passkeyd verify: too many arguments at b.json", "usage: passkeyd verify"),
            (["verify-apple-token", "--audience", "a", "--nonce-optional", "T"], 2, "passkeyd verify-apple-token: --jwks is required", "usage:"),
            (["verify-apple-token", "--jwks", "k", "--nonce-optional", "T"], 2, "at least one --audience is required", "usage:"),
            (["verify-apple-token", "--jwks", "k", "--audience", "a", "T"], 2, "the nonce policy has no default", "usage:"),
            (
                ["verify-apple-token", "--jwks", "k", "--audience", "a", "--nonce-optional", "--at", "soon", "T"], 2, "--at needs an ISO 8601",
                "usage:"
            ),
            (["apple"], 2, "passkeyd apple: the apple command is transfer-out or transfer-in", "usage: passkeyd apple transfer-out"),
            (["apple", "transfer-out"], 2, "--recipient-team is required", "usage: passkeyd apple transfer-out --recipient-team TEAMID"),
            (["apple", "transfer-out", "--recipient-team", "abc"], 2, "--recipient-team must be a 10-character Team ID", "usage:"),
            (["apple", "transfer-in", "--rate", "0"], 2, "--rate must be a number", "usage: passkeyd apple transfer-in"),
            (["apple", "transfer-in", "--recipient-team", "ABCDE12345"], 2, "unknown option --recipient-team", "usage: passkeyd apple transfer-in"),
            (["apple", "transfer-in", "--config", "/nonexistent.json"], 1, "passkeyd apple transfer-in: invalid configuration", "cannot read"),
        ] as [([String], Int32, String, String)]
    )
    func badCommandLinesNameTheArgument(arguments: [String], status: Int32, message: String, usage: String) throws {
        let result = try Self.run(arguments)
        #expect(result.status == status)
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.contains(usage), "\(result.errorOutput)")
    }

    /// Both audiences, the `=` form, a switch and `--` reach the verifier: a token for the second audience verifies.
    @Test func repeatedAudiencesAndTheDashDashReachTheVerifier() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keys = folder.appendingPathComponent("jwks.json")
        try Data(try AppleTestKeys.jwks([AppleTestKeys.primaryKeyID])).write(to: keys)
        let token = try AppleTokenMinter.sign(
            AppleTokenMinter.identityClaims(now: Date(), rawNonce: "raw-nonce", audience: AppleTokenMinter.servicesID)
        )
        let audiences = ["--audience", AppleTokenMinter.bundleID, "--audience=\(AppleTokenMinter.servicesID)"]
        for nonce in [["--raw-nonce", "raw-nonce"], ["--nonce-optional"]] {
            let result = try Self.run(["verify-apple-token", "--jwks=\(keys.path)"] + audiences + nonce + ["--", token])
            #expect(result.status == 0, "\(result.errorOutput)")
            let verdict = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
            #expect(verdict["ok"] as? Bool == true, "\(verdict)")
            #expect(verdict["sub"] as? String == AppleTokenMinter.subject)
        }
    }
}
