import ConfigurationFile
import FederatedIdentity
import Foundation
import Observability
import OutboundHTTP
import RelyingPartyServer

/// `passkeyd apple transfer-out --recipient-team TEAMID [--config FILE] [--rate N]` and `passkeyd apple transfer-in
/// [--config FILE] [--rate N]`: Apple's user migration for an app transfer between teams, on the configured store,
/// with the configured Apple key and URLs. Resumable and idempotent; one line of progress on a terminal, a summary.
struct AppleCommand {
    let arguments: [String]

    static let transferOutSyntax = CommandLineSyntax(
        usage: "passkeyd apple transfer-out --recipient-team TEAMID [--config FILE] [--rate N]",
        options: ["--recipient-team", "--config", "--rate"]
    )
    static let transferInSyntax = CommandLineSyntax(usage: "passkeyd apple transfer-in [--config FILE] [--rate N]", options: ["--config", "--rate"])
    /// Calls to Apple a second, by default.
    static let defaultRate = 10.0

    func run() -> Int32 {
        let direction: AppleTransfer.Direction
        let name: String
        let configurationPath: String?
        let rate: Double
        do {
            switch arguments.first {
            case "transfer-out":
                let line = try Self.transferOutSyntax.parse(arguments.dropFirst())
                let team = try line.required("--recipient-team")
                guard team.count == 10, team.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
                    throw CommandLineError(.invalidArgument, "--recipient-team must be a 10-character Team ID", usage: Self.transferOutSyntax.usage)
                }
                (direction, name, configurationPath, rate) = (.out(recipientTeam: team), "transfer-out", line.value("--config"), try Self.rate(line))
            case "transfer-in":
                let line = try Self.transferInSyntax.parse(arguments.dropFirst())
                (direction, name, configurationPath, rate) = (.in, "transfer-in", line.value("--config"), try Self.rate(line))
            default:
                throw CommandLineError(
                    .invalidArgument,
                    "the apple command is transfer-out or transfer-in",
                    usage: "\(Self.transferOutSyntax.usage)\n       \(Self.transferInSyntax.usage)"
                )
            }
        } catch {
            FileHandle.standardError.write(Data("passkeyd apple: \(error)\n".utf8))
            return 2
        }
        let log = Logger { record in FileHandle.standardError.write(Data("\npasskeyd: \(record.message)\n".utf8)) }
        let configuration: ServerConfiguration
        do {
            configuration = try configurationPath.map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
        } catch {
            return fail(name, "invalid configuration: \(error)")
        }
        guard let apple = configuration.apple else { return fail(name, "the configuration has no apple block") }
        let report: AppleTransfer.Report
        do {
            let outbound = try HTTPClient()
            defer { outbound.shutDown() }
            let opened = try ConfiguredStore(configuration)
            defer { opened.close() }
            let transfer = try AppleTransfer(
                configuration: apple,
                setup: try opened.appleSetup(apple, client: outbound, log: log),
                store: opened.store,
                log: log
            )
            let interactive = isatty(FileHandle.standardError.fileDescriptor) == 1
            report = try transfer.run(
                direction,
                interval: 1 / rate,
                progress: { report in
                    guard interactive else { return }
                    let line =
                        "\r\(name): \(report.seen) identities, \(report.transferred) transferred, \(report.skipped) skipped, \(report.failed) failed"
                    FileHandle.standardError.write(Data(line.utf8))
                }
            )
            if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        } catch {
            return fail(name, "\(error)")
        }
        print(
            "\(name): \(report.seen) Apple identities: \(report.transferred) transferred, \(report.skipped) done before or not concerned, "
                + "\(report.failed) failed" + (report.failed > 0 ? " (run it again to retry them)" : "")
        )
        return report.failed == 0 ? 0 : 1
    }

    /// `--rate N`: calls to Apple a second, 0.1 to 100.
    private static func rate(_ line: ParsedCommandLine) throws(CommandLineError) -> Double {
        guard let text = line.value("--rate") else { return defaultRate }
        guard let rate = Double(text), rate >= 0.1, rate <= 100 else {
            throw CommandLineError(.invalidArgument, "--rate must be a number of calls a second from 0.1 to 100", usage: line.usage)
        }
        return rate
    }

    private func fail(_ name: String, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd apple \(name): \(message)\n".utf8))
        return 1
    }
}
