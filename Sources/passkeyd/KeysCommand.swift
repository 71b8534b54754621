import CryptoCore
import Foundation
import RelyingPartyServer
import Storage

/// `passkeyd keys list|rotate|backend-key`: the signing keys of the deployment the configuration names (its store and
/// server secret, as `serve` opens them), and new backend keys for `POST /introspect` (`NewKeyCommand`).
struct KeysCommand {
    let arguments: [String]

    static let listSyntax = CommandLineSyntax(usage: "passkeyd keys list [--config FILE]", options: ["--config"])
    static let rotateSyntax = CommandLineSyntax(
        usage: "passkeyd keys rotate [--config FILE] [--immediately]",
        options: ["--config"],
        switches: ["--immediately"]
    )

    func run() -> Int32 {
        switch arguments.first {
        case "list": return withKeys(Self.listSyntax) { schedule, store, _ in try Self.list(try schedule.current(store: store)) }
        case "rotate":
            return withKeys(Self.rotateSyntax) { schedule, store, line in
                let (change, keys) = try schedule.rotate(store: store, now: Date(), immediately: line.isSet("--immediately"))
                print(
                    "created \(change.created ?? "nothing"); retired \(change.retired.isEmpty ? "nothing" : change.retired.joined(separator: ", "))"
                )
                try Self.list(keys)
            }
        case "backend-key": return NewKeyCommand(arguments: Array(arguments.dropFirst()), kind: .backend).run()
        default:
            FileHandle.standardError.write(
                Data(
                    "passkeyd keys: say list, rotate or backend-key\nusage: \(Self.listSyntax.usage)\n       \(Self.rotateSyntax.usage)\n       \(NewKeyCommand.Kind.backend.syntax.usage)\n"
                        .utf8
                )
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
