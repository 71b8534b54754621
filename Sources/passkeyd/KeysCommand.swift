import AccessTokens
import ConfigurationFile
import CryptoCore
import Foundation
import RelyingPartyServer
import Storage

/// `passkeyd keys list|rotate|revoke|backend-key`: the signing keys of the deployment the configuration names (its store and
/// server secret, as `serve` opens them), and new backend keys for `POST /introspect` (`NewKeyCommand`).
struct KeysCommand {
    let arguments: [String]

    static let listSyntax = CommandLineSyntax(usage: "passkeyd keys list [--config FILE]", options: ["--config"])
    static let rotateSyntax = CommandLineSyntax(
        usage: "passkeyd keys rotate [--config FILE] [--immediately]",
        options: ["--config"],
        switches: ["--immediately"]
    )
    /// `--` before a kid that starts with "--" (one made before kids stopped starting with '-').
    static let revokeSyntax = CommandLineSyntax(usage: "passkeyd keys revoke [--config FILE] [--] KID", options: ["--config"], maximumPositionals: 1)

    func run() -> Int32 {
        switch arguments.first {
        case "list": return withKeys(Self.listSyntax) { schedule, store, _ in try Self.list(try schedule.current(store: store)) }
        case "rotate":
            return withKeys(Self.rotateSyntax) { schedule, store, line in
                let (change, keys) = try schedule.rotate(store: store, now: Date(), immediately: line.isSet("--immediately"))
                Self.describe(change)
                try Self.list(keys)
            }
        case "revoke":
            return withKeys(Self.revokeSyntax) { schedule, store, line in
                guard let kid = line.positionals.first else {
                    throw CommandLineError(.missingOption, "the kid to revoke is missing", usage: Self.revokeSyntax.usage)
                }
                guard let (change, keys) = try schedule.revoke(id: kid, store: store, now: Date()) else {
                    throw CommandLineError(.invalidArgument, "no signing key has the kid \(kid)", usage: Self.revokeSyntax.usage)
                }
                Self.describe(change)
                try Self.list(keys)
            }
        case "backend-key": return NewKeyCommand(arguments: Array(arguments.dropFirst()), kind: .backend).run()
        default:
            let usage = [Self.listSyntax, Self.rotateSyntax, Self.revokeSyntax, NewKeyCommand.Kind.backend.syntax].map(\.usage)
            FileHandle.standardError.write(
                Data("passkeyd keys: say list, rotate, revoke or backend-key\nusage: \(usage.joined(separator: "\n       "))\n".utf8)
            )
            return 2
        }
    }

    /// Parses the command line, opens the deployment's store and runs `body`; 0 when it ran, 1 when it failed, 2 for a
    /// command line or configuration that cannot be used.
    private func withKeys(
        _ syntax: CommandLineSyntax,
        _ body: (SigningKeySchedule, any PasskeyStore, ParsedCommandLine) throws -> Void
    ) -> Int32 {
        let line: ParsedCommandLine
        let configuration: ServerConfiguration
        do {
            line = try syntax.parse(arguments.dropFirst())
            configuration = try line.value("--config").map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
        } catch {
            return fail("\(error)", status: 2)
        }
        do {
            let deployment = try ConfiguredStore(configuration)
            defer { deployment.close() }
            let vault = try SigningKeyVault(serverSecret: try deployment.secrets.secret(named: SecretSource.serverSecret))
            try body(SigningKeySchedule(settings: configuration.tokens, vault: vault), deployment.store, line)
            return 0
        } catch {
            return fail("\(error)", status: 1)
        }
    }

    /// What a rotation or revocation changed, on one line.
    private static func describe(_ change: SigningKeySchedule.Change) {
        let named = { (ids: [String]) in ids.isEmpty ? "nothing" : ids.joined(separator: ", ") }
        let started = change.promoted.map { "promoted the standby \($0)" } ?? "created \(change.created ?? "nothing")"
        print("\(started); retired \(named(change.retired)); withdrawn \(named(change.deleted))")
    }

    /// One line per key: kid, algorithm, state at this moment, and its times.
    private static func list(_ keys: [SigningKeyRecord]) throws {
        let now = Date()
        print("kid               alg    state     created               activates             retires               unpublished")
        for key in keys {
            let state =
                key.expiresAt.map { $0 <= now } == true
                ? "expired"
                : key.retiresAt.map { $0 <= now } == true
                    ? "retired"
                    : key.activatesAt > now ? "pending" : "signing"
            let times = [key.createdAt, key.activatesAt, key.retiresAt, key.expiresAt].map { $0.map { $0.formatted(.iso8601) } ?? "-" }
            let columns = [(key.id, 17), (key.algorithm, 6), (state, 9)] + times.map { ($0, 21) }
            print(columns.map { $0.0.padding(toLength: $0.1, withPad: " ", startingAt: 0) }.joined(separator: " "))
        }
    }

    private func fail(_ message: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd keys: \(message)\n".utf8))
        return status
    }
}
