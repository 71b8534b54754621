import CryptoCore
import Foundation

/// `passkeyd keys admin-key NAME` and `passkeyd keys backend-key NAME`: a new random key and the configuration entry
/// to paste; only its SHA-256 goes into the configuration, and the key is printed once.
struct NewKeyCommand {
    /// What the key is for: its command line, what the printout calls it, who keeps it, and where the entry goes.
    struct Kind: Sendable {
        let syntax: CommandLineSyntax
        let noun: String
        let keeper: String
        let destination: String

        /// An admin key for `listen.admin` (`admin.keys`).
        static let admin = Kind(
            syntax: CommandLineSyntax(usage: "passkeyd keys admin-key NAME", maximumPositionals: 1),
            noun: "admin key",
            keeper: "keep it in the operator's secret store",
            destination: #""admin": {"keys": [...]}"#
        )
        /// A backend key for `POST /introspect` (`backends`).
        static let backend = Kind(
            syntax: CommandLineSyntax(usage: "passkeyd keys backend-key NAME", maximumPositionals: 1),
            noun: "backend key",
            keeper: "give it to the backend",
            destination: #""backends""#
        )
    }

    /// The arguments after the subcommand (`admin-key`, `backend-key`).
    let arguments: [String]
    let kind: Kind

    func run() -> Int32 {
        let name: String
        do {
            let line = try kind.syntax.parse(arguments)
            guard let given = line.positionals.first else {
                throw CommandLineError(.missingOption, "NAME is required", usage: kind.syntax.usage)
            }
            guard given.utf8.count <= 64, given.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw CommandLineError(.invalidArgument, "NAME is 1 to 64 letters, digits, '-', '_' or '.'", usage: kind.syntax.usage)
            }
            name = given
        } catch {
            FileHandle.standardError.write(Data("passkeyd keys: \(error)\n".utf8))
            return 2
        }
        let key = Base64URL.encode(SystemRandom().bytes(count: 32))
        print("\(kind.noun) for \(name) (\(kind.keeper); it is not stored anywhere):")
        print("  \(key)")
        print("add to \(kind.destination) in the configuration:")
        print(#"  {"name": "\#(name)", "keySHA256": "\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(key.utf8))))"}"#)
        return 0
    }
}
