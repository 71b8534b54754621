import ConfigurationReading
import Foundation
import MailTransport

/// The `email` block: the SMTP relay passkeyd sends its own mail through, the sender, the public base URL of the
/// links, which messages are on, the templates, and the outbox's retries. Without it passkeyd sends no mail.
public struct EmailSettings: Sendable {
    /// Where the relay's password comes from: never the configuration file itself.
    package enum PasswordSource: Sendable, Equatable {
        case file(String)
        case environment(String)
    }

    package var relay: SMTPConfiguration
    package var passwordSource: PasswordSource?
    package var from: MailAddress
    package var replyTo: MailAddress?
    /// `https://…` (or `http://` to loopback) without a trailing `/`: every link in a message starts with it.
    package var baseURL: String
    /// The members of `messages` that are on (`MailKind.switchName`).
    package var enabledSwitches: Set<String> = ["verifyAddress", "recovery", "securityNotices", "enrollment"]
    package var templatesFolder: String?
    /// Parsed at load (`ServerConfiguration.load`); the shipped defaults until then.
    package var templates: MailTemplateSet?
    /// Attempts at one message before it is dead.
    package var maximumAttempts = 8
    package var firstRetrySeconds = 30
    package var maximumRetrySeconds = 3_600
    /// How long a sent or dead message's row is kept (without its body) before it is purged.
    package var retentionSeconds = 604_800
    /// How long a verification's link and code are valid (a day: long enough to find the mail), 5 minutes to 7 days.
    package var verificationLifetimeSeconds = 86_400
    /// How long a recovery link is valid (15 minutes), a minute to an hour: it opens a session without a passkey.
    package var recoveryLinkLifetimeSeconds = 900
    /// `bounces`: the providers' bounce and complaint webhooks; nil takes none.
    package var bounces: BounceSettings?

    package func isEnabled(_ kind: MailKind) -> Bool { enabledSwitches.contains(kind.switchName) }

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        if reader.has("password") {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("password"),
                "is not read from the configuration file: use passwordFile (a file only passkeyd can read) or passwordEnvironment"
            )
        }
        try reader.only([
            "host", "port", "security", "username", "passwordFile", "passwordEnvironment", "caFile", "from", "fromName", "replyTo", "baseURL",
            "messages", "templates", "connectTimeoutSeconds", "timeoutSeconds", "maximumAttempts", "firstRetrySeconds", "maximumRetrySeconds",
            "retentionSeconds", "verificationLifetimeSeconds", "recoveryLinkLifetimeSeconds", "bounces",
        ])
        let securityName = try reader.string("security") ?? "starttls"
        guard let security = SMTPSecurity(rawValue: securityName) else {
            throw ConfigurationError(.invalidValue, key: reader.key("security"), "must be starttls, tls, or plain (loopback hosts only)")
        }
        let host = try reader.requiredString("host")
        let port = try reader.integer("port", in: 1...65_535) ?? (security == .tls ? 465 : security == .starttls ? 587 : 25)
        let username = try reader.string("username")
        let passwordFile = try reader.string("passwordFile")
        let passwordEnvironment = try reader.string("passwordEnvironment")
        switch (passwordFile, passwordEnvironment) {
        case (let file?, nil): passwordSource = .file(file)
        case (nil, let name?): passwordSource = .environment(name)
        case (nil, nil): passwordSource = nil
        case (_?, _?): throw ConfigurationError(.invalidValue, key: reader.key("passwordFile"), "give passwordFile or passwordEnvironment, not both")
        }
        guard (username == nil) == (passwordSource == nil) else {
            throw ConfigurationError(.missingValue, key: reader.key("username"), "username and passwordFile (or passwordEnvironment) go together")
        }
        relay = SMTPConfiguration(
            host: host,
            port: port,
            security: security,
            username: username,
            password: nil,
            caFile: try reader.string("caFile"),
            connectTimeoutMilliseconds: 1_000 * (try reader.integer("connectTimeoutSeconds", in: 1...60) ?? 10),
            timeoutMilliseconds: 1_000 * (try reader.integer("timeoutSeconds", in: 1...300) ?? 30)
        )
        // Checked with a stand-in password: the real one is read by `load`, and until then a client cannot be made
        // (a user name without a password is refused), so nothing is ever sent with a wrong one.
        do throws(MailError) {
            var checked = relay
            checked.password = passwordSource == nil ? nil : "stand-in"
            try checked.validate()
        } catch {
            throw ConfigurationError(.invalidValue, key: reader.key("host"), error.reason)
        }
        from = try Self.address(reader, "from", displayName: try reader.string("fromName"))
        replyTo = reader.has("replyTo") ? try Self.address(reader, "replyTo", displayName: nil) : nil
        relay.heloName = String(from.domain)
        guard var baseURL = try reader.outboundURL("baseURL") else {
            throw ConfigurationError(
                .missingValue,
                key: reader.key("baseURL"),
                "is required: the public https:// URL of passkeyd that links in mail point to"
            )
        }
        guard let components = URLComponents(string: baseURL), components.query == nil, components.fragment == nil else {
            throw ConfigurationError(.invalidValue, key: reader.key("baseURL"), "must have no query and no fragment")
        }
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        self.baseURL = baseURL
        if let messages = try reader.object("messages") {
            let switches = Set(MailKind.allCases.map(\.switchName))
            try messages.only(switches)
            for name in switches {
                guard let on = try messages.bool(name) else { continue }
                if on { enabledSwitches.insert(name) } else { enabledSwitches.remove(name) }
            }
        }
        templatesFolder = try reader.string("templates")
        maximumAttempts = try reader.integer("maximumAttempts", in: 1...100) ?? maximumAttempts
        firstRetrySeconds = try reader.integer("firstRetrySeconds", in: 1...3_600) ?? firstRetrySeconds
        maximumRetrySeconds = try reader.integer("maximumRetrySeconds", in: firstRetrySeconds...86_400) ?? max(firstRetrySeconds, maximumRetrySeconds)
        retentionSeconds = try reader.integer("retentionSeconds", in: 3_600...31_536_000) ?? retentionSeconds
        verificationLifetimeSeconds = try reader.integer("verificationLifetimeSeconds", in: 300...604_800) ?? verificationLifetimeSeconds
        recoveryLinkLifetimeSeconds = try reader.integer("recoveryLinkLifetimeSeconds", in: 60...3_600) ?? recoveryLinkLifetimeSeconds
        bounces = try reader.object("bounces").map { (block: ConfigurationReader) throws(ConfigurationError) in try BounceSettings(block) }
    }

    private static func address(_ reader: ConfigurationReader, _ name: String, displayName: String?) throws(ConfigurationError) -> MailAddress {
        let text = try reader.requiredString(name)
        do throws(MailError) {
            return try MailAddress(text, displayName: displayName)
        } catch {
            throw ConfigurationError(.invalidValue, key: reader.key(error.code == .addressInvalid ? name : "fromName"), error.reason)
        }
    }

    /// Reads the password (from its file, trailing line ends dropped, or from the environment) and the templates.
    package mutating func load(environment: [String: String]) throws(ConfigurationError) {
        switch passwordSource {
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(.invalidFile, key: "email.passwordFile", "cannot read \(path)")
            }
            relay.password = String(text.trimmingCharacters(in: .newlines))
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw ConfigurationError(.missingValue, key: "email.passwordEnvironment", "the environment variable \(name) is not set")
            }
            relay.password = value
        case nil:
            break
        }
        do throws(MailError) {
            try relay.validate()
        } catch {
            throw ConfigurationError(.invalidValue, key: "email.passwordFile", error.reason)
        }
        templates = try MailTemplateSet(folder: templatesFolder)
        try bounces?.load(environment: environment)
    }
}
