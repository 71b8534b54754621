import CryptoCore
import Foundation

/// `passkeyd keys admin-key NAME`: a new random admin key and the `admin.keys` entry to paste; only its SHA-256 goes
/// into the configuration, and the key is printed once.
struct AdminKeyCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(usage: "passkeyd keys admin-key NAME", maximumPositionals: 1)

    func run() -> Int32 {
        let name: String
        do {
            let line = try Self.syntax.parse(arguments)
            guard let given = line.positionals.first else {
                throw CommandLineError(.missingOption, "NAME is required", usage: Self.syntax.usage)
            }
            guard given.utf8.count <= 64, given.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw CommandLineError(.invalidArgument, "NAME is 1 to 64 letters, digits, '-', '_' or '.'", usage: Self.syntax.usage)
            }
            name = given
        } catch {
            FileHandle.standardError.write(Data("passkeyd keys: \(error)\n".utf8))
            return 2
        }
        let key = Base64URL.encode(SystemRandom().bytes(count: 32))
        print("admin key for \(name) (keep it in the operator's secret store; it is not stored anywhere):")
        print("  \(key)")
        print("add to \"admin\": {\"keys\": [...]} in the configuration:")
        print(#"  {"name": "\#(name)", "keySHA256": "\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(key.utf8))))"}"#)
        return 0
    }
}
