import ConfigurationFile
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import RelyingPartyServer
import UserImport

/// `passkeyd admin …`: the admin API's operations on the configured store, through the same `AdminService`, so they
/// work with the server stopped (and a deletion still queues the Apple revocations and appends its events, which a
/// running node then sends). Prints a short text answer, or the admin API's JSON with `--json`. Exit status: 0 when it
/// was done, 1 when it was refused or failed (the error code and message on standard error; with `--json` also as
/// `{"error", "message"}` on standard output), 2 for a command line or configuration that cannot be used.
struct AdminCommand {
    let arguments: [String]

    static let usersListSyntax = syntax(
        "users list [--query Q] [--cursor C] [--limit N] | users list --external-id ID",
        options: ["--query", "--cursor", "--limit", "--external-id"]
    )
    static let usersShowSyntax = syntax("users show USER_ID", positionals: 1)
    static let usersCreateSyntax = syntax(
        "users create --username NAME [--display-name NAME] [--email EMAIL] [--email-verified] [--external-id ID]",
        options: ["--username", "--display-name", "--email", "--external-id"],
        switches: ["--email-verified"]
    )
    static let usersUpdateSyntax = syntax(
        "users update USER_ID [--username NAME] [--display-name NAME] [--email EMAIL] [--email-verified true|false] [--external-id ID]"
            + " [--disabled true|false]",
        options: ["--username", "--display-name", "--email", "--email-verified", "--external-id", "--disabled"],
        positionals: 1
    )
    static let usersDeleteSyntax = syntax("users delete USER_ID", positionals: 1)
    static let usersRevokeSyntax = syntax("users revoke-sessions USER_ID", positionals: 1)
    static let usersMergeSyntax = syntax("users merge USER_ID --from OTHER_USER_ID", options: ["--from"], positionals: 1)
    static let usersDeletePasskeySyntax = syntax("users delete-passkey USER_ID CREDENTIAL_ID", positionals: 2)
    static let usersEnrollLinkSyntax = syntax("users enroll-link USER_ID", positionals: 1)
    static let webhooksListSyntax = syntax(
        "webhooks list [--status pending|delivered|dead] [--cursor C] [--limit N]",
        options: ["--status", "--cursor", "--limit"]
    )
    static let webhooksRetrySyntax = syntax("webhooks retry DELIVERY_ID", positionals: 1)
    static let exportSyntax = syntax("export [--output FILE]", options: ["--output"])
    static let importSyntax = syntax(
        "import FILE | import --firebase USERS_JSON [--hash-key B64 --salt-separator B64 --rounds N --mem-cost N]"
            + " | import --supabase USERS_JSON | import --auth0 FILE [--batch-size N]",
        options: ["--firebase", "--supabase", "--auth0", "--hash-key", "--salt-separator", "--rounds", "--mem-cost", "--batch-size"],
        positionals: 1
    )

    static let all = [
        usersListSyntax, usersShowSyntax, usersCreateSyntax, usersUpdateSyntax, usersDeleteSyntax, usersRevokeSyntax, usersMergeSyntax,
        usersDeletePasskeySyntax, usersEnrollLinkSyntax, webhooksListSyntax, webhooksRetrySyntax, exportSyntax, importSyntax,
    ]

    /// Every subcommand takes `--config FILE` and `--json`.
    private static func syntax(_ rest: String, options: Set<String> = [], switches: Set<String> = [], positionals: Int = 0) -> CommandLineSyntax {
        CommandLineSyntax(
            usage: "passkeyd admin \(rest) [--config FILE] [--json]",
            options: options.union(["--config"]),
            switches: switches.union(["--json"]),
            maximumPositionals: positionals
        )
    }

    /// One operation: the service call, and how its answer reads as text (its JSON with `--json`; an answer without
    /// JSON, the export, is its text either way).
    private struct Operation {
        let syntax: CommandLineSyntax
        let run: (AdminService, ParsedCommandLine, _ input: FileHandle?) throws(ServerError) -> (json: (any Encodable)?, text: String)
    }

    func run() -> Int32 {
        // `export` and `import` are one word; every other command two.
        let wordCount = ["export", "import"].contains(arguments.first ?? "") ? 1 : 2
        let words = arguments.prefix(wordCount).joined(separator: " ")
        guard let operation = Self.operation(words) else {
            let usage = Self.all.map(\.usage).joined(separator: "\n       ")
            FileHandle.standardError.write(Data("passkeyd admin: unknown command '\(words)'\nusage: \(usage)\n".utf8))
            return 2
        }
        let line: ParsedCommandLine
        let configuration: ServerConfiguration
        var input: FileHandle?
        do {
            line = try operation.syntax.parse(arguments.dropFirst(wordCount))
            let named = Self.importFileOptions.compactMap { line.value($0) }
            let positionals = words == "import" && !named.isEmpty ? 0 : operation.syntax.maximumPositionals
            guard line.positionals.count == positionals else {
                throw CommandLineError(.missingOption, "an ID is missing", usage: operation.syntax.usage)
            }
            if let limit = line.value("--limit"), Int(limit) == nil {
                throw CommandLineError(.invalidArgument, "--limit must be a number", usage: operation.syntax.usage)
            }
            for option in ["--email-verified", "--disabled"] {
                if let value = line.value(option), value != "true", value != "false" {
                    throw CommandLineError(.invalidArgument, "\(option) must be true or false", usage: operation.syntax.usage)
                }
            }
            if words == "import" {
                input = try Self.importFile(named.first ?? line.positionals[0], line, usage: operation.syntax.usage)
            }
            configuration = try line.value("--config").map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
        } catch {
            FileHandle.standardError.write(Data("passkeyd admin: \(error)\n".utf8))
            return 2
        }
        let json = line.isSet("--json")
        let log = Logger { record in FileHandle.standardError.write(Data("passkeyd: \(record.message)\n".utf8)) }
        do {
            let deployment = try Deployment(configuration, metrics: nil, log: log)
            defer {
                deployment.close()
                try? input?.close()
            }
            do throws(ServerError) {
                let answer = try operation.run(deployment.server.admin, line, input)
                if words == "export", let output = line.value("--output") {
                    guard
                        FileManager.default.createFile(
                            atPath: output,
                            contents: Data((answer.text + "\n").utf8),
                            attributes: [.posixPermissions: 0o600]
                        )
                    else {
                        FileHandle.standardError.write(Data("passkeyd admin: cannot write \(output)\n".utf8))
                        return 1
                    }
                    return 0
                }
                print(json ? answer.json.map(Self.encode) ?? answer.text : answer.text)
                return 0
            } catch {
                FileHandle.standardError.write(Data("passkeyd admin: \(error)\(error.line.map { " on line \($0)" } ?? "")\n".utf8))
                if json { print(Self.encode(Refusal(error: error.code.rawValue, message: error.message, line: error.line))) }
                return 1
            }
        } catch {
            FileHandle.standardError.write(Data("passkeyd admin: cannot open the store: \(error)\n".utf8))
            return 2
        }
    }

    private static func operation(_ words: String) -> Operation? {
        switch words {
        case "users list":
            return Operation(syntax: usersListSyntax) { admin, line, _ throws(ServerError) in
                let page: AdminUserPage
                if let externalID = line.value("--external-id") {
                    page = try admin.searchUsers(externalID: externalID)
                } else {
                    page = try admin.searchUsers(query: line.value("--query") ?? "", cursor: line.value("--cursor"), limit: limit(line))
                }
                let rows = page.users.map { "\($0.user.id)  \($0.user.username)  \($0.user.email ?? "-")  (\($0.matchedBy))" }
                return (page, (rows + (page.nextCursor.map { ["next: --cursor \($0)"] } ?? [])).joined(separator: "\n"))
            }
        case "users show":
            return Operation(syntax: usersShowSyntax) { admin, line, _ throws(ServerError) in
                let detail = try admin.user(id: line.positionals[0])
                return (detail, pretty(detail))
            }
        case "users create":
            return Operation(syntax: usersCreateSyntax) { admin, line, _ throws(ServerError) in
                let change = AdminUserChange(
                    username: line.value("--username") ?? "",
                    displayName: line.value("--display-name"),
                    email: line.value("--email"),
                    emailVerified: line.isSet("--email-verified"),
                    externalId: line.value("--external-id")
                )
                let answer = try admin.createUser(change)
                return (answer, "\(answer.created ? "created" : "exists") \(answer.user.id) \(answer.user.username)")
            }
        case "users update":
            return Operation(syntax: usersUpdateSyntax) { admin, line, _ throws(ServerError) in
                let verified = line.value("--email-verified").map { $0 == "true" }
                let change = AdminUserChange(
                    username: line.value("--username"),
                    displayName: line.value("--display-name"),
                    email: line.value("--email"),
                    emailVerified: verified,
                    externalId: line.value("--external-id"),
                    disabled: line.value("--disabled").map { $0 == "true" }
                )
                let user = try admin.updateUser(id: line.positionals[0], change)
                return (["user": user], "updated \(user.id) \(user.username)")
            }
        case "users delete":
            return Operation(syntax: usersDeleteSyntax) { admin, line, _ throws(ServerError) in
                try admin.deleteUser(id: line.positionals[0])
                return (["deleted": true], "deleted \(line.positionals[0])")
            }
        case "users merge":
            return Operation(syntax: usersMergeSyntax) { admin, line, _ throws(ServerError) in
                let user = try admin.mergeUsers(into: line.positionals[0], from: line.value("--from") ?? "")
                return (["user": user], "merged \(line.value("--from") ?? "") into \(user.id) \(user.username)")
            }
        case "users revoke-sessions":
            return Operation(syntax: usersRevokeSyntax) { admin, line, _ throws(ServerError) in
                let count = try admin.revokeSessions(userID: line.positionals[0])
                return (["revoked": count], "revoked \(count) session(s)")
            }
        case "users delete-passkey":
            return Operation(syntax: usersDeletePasskeySyntax) { admin, line, _ throws(ServerError) in
                try admin.deletePasskey(userID: line.positionals[0], credentialID: line.positionals[1])
                return (["deleted": true], "deleted passkey \(line.positionals[1])")
            }
        case "users enroll-link":
            return Operation(syntax: usersEnrollLinkSyntax) { admin, line, _ throws(ServerError) in
                let link = try admin.createEnrollmentLink(userID: line.positionals[0])
                return (link, "\(link.url)\nexpires \(ISO8601DateFormatter().string(from: link.expiresAt))")
            }
        case "webhooks list":
            return Operation(syntax: webhooksListSyntax) { admin, line, _ throws(ServerError) in
                let page = try admin.webhookDeliveries(status: line.value("--status"), cursor: line.value("--cursor"), limit: limit(line))
                let rows = page.deliveries.map { delivery in
                    "\(delivery.id)  \(delivery.eventId)  \(delivery.endpointId)  \(delivery.status)  attempts \(delivery.attempts)"
                        + "  last \(delivery.lastStatus.map(String.init) ?? "-") \(delivery.lastError ?? "")"
                }
                return (page, (rows + (page.nextCursor.map { ["next: --cursor \($0)"] } ?? [])).joined(separator: "\n"))
            }
        case "webhooks retry":
            return Operation(syntax: webhooksRetrySyntax) { admin, line, _ throws(ServerError) in
                try admin.retryWebhookDelivery(id: line.positionals[0])
                return (["queued": true], "queued delivery \(line.positionals[0]) again")
            }
        case "export":
            return Operation(syntax: exportSyntax) { admin, _, _ throws(ServerError) in
                let lines = String(decoding: try admin.export(), as: UTF8.self)
                return (nil, lines.hasSuffix("\n") ? String(lines.dropLast()) : lines)
            }
        case "import":
            return Operation(syntax: importSyntax) { admin, line, input throws(ServerError) in
                let report = try importFile(input, format: try importFormat(line), line: line, admin: admin)
                return (report, importText(report))
            }
        default:
            return nil
        }
    }

    /// A refusal with `--json`: the admin API's `error` and `message`, and the import's `line` when there is one.
    private struct Refusal: Encodable {
        let error: String
        let message: String
        let line: Int?
    }

    /// The import's report as lines of text.
    static func importText(_ report: AdminImportReport) -> String {
        func counts(_ name: String, _ counts: AdminImportReport.Counts) -> String {
            "\(name): \(counts.created) created, \(counts.updated) updated, \(counts.unchanged) unchanged"
        }
        var lines = [
            counts("users", report.users), counts("passkeys", report.passkeys), counts("Apple identities", report.appleIdentities),
            counts("password hashes", report.passwords),
            counts("identities", report.identities),
        ]
        if let skipped = report.skipped {
            let providers = skipped.providers.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append(
                "skipped: \(skipped.count) (without Sign in with Apple or Google: \(providers.isEmpty ? "none" : providers); disabled: \(skipped.disabled))"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// `--limit`, checked to be a number by `run`.
    private static func limit(_ line: ParsedCommandLine) -> Int? {
        line.value("--limit").flatMap { Int($0) }
    }

    /// The admin API's JSON encoding (sorted keys, ISO 8601 dates) on one line.
    static func encode(_ value: any Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private static func pretty(_ value: any Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
