import AssociatedDomains
import CryptoCore
import Foundation
import OutboundHTTP
import RelyingPartyServer

/// `passkeyd check-domain`: checks a domain's associated-domain files as devices fetch them (`DomainCheck`) and prints
/// one line per check, or one JSON object with `--json`. Exit status: 0 when everything holds, 1 when something is
/// wrong, 2 when it could not run (a bad command line, an unreadable CA file, a domain that cannot be reached).
struct CheckDomainCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(
        usage:
            "passkeyd check-domain https://DOMAIN [--app TEAMID.bundle ...] [--android PACKAGE:FINGERPRINT ...] [--json] [--cdn-url URL] [--ca-file PEM]",
        options: ["--cdn-url", "--ca-file"],
        repeatedOptions: ["--app", "--android"],
        switches: ["--json"],
        maximumPositionals: 1
    )

    func run() -> Int32 {
        let check: DomainCheck
        let caFile: String?
        let json: Bool
        do {
            let line = try Self.syntax.parse(arguments)
            guard let domain = line.positionals.first else {
                throw CommandLineError(.missingOption, "the domain to check is required (https://example.com)", usage: Self.syntax.usage)
            }
            do {
                check = try DomainCheck(
                    domain: domain,
                    apps: line.values("--app"),
                    android: line.values("--android"),
                    cdnURL: line.value("--cdn-url"),
                    userAgent: "passkeyd-check-domain/\(Version.number)"
                )
            } catch {
                throw CommandLineError(.invalidArgument, error.description, usage: Self.syntax.usage)
            }
            caFile = line.value("--ca-file")
            json = line.isSet("--json")
        } catch {
            return fail("\(error)")
        }
        let client: HTTPClient
        do {
            let tls = try caFile.map { file in try TLSClientContext(caFile: file) }
            client = try HTTPClient(configuration: HTTPClientConfiguration(tls: tls, userAgent: "passkeyd-check-domain/\(Version.number)"))
        } catch {
            return fail("--ca-file: \(error)")
        }
        let report = check.run(using: client)
        client.shutDown()
        FileHandle.standardOutput.write(Data((json ? report.json : report.text).utf8))
        return report.exitStatus
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd check-domain: \(message)\n".utf8))
        return 2
    }
}
