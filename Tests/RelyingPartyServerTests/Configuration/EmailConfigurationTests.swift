import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Email
import Foundation
import MailTransport
import Storage
import Testing

@testable import RelyingPartyServer

/// The `email` block: its defaults, the password from a file or the environment (never inline), the templates, and
/// every refusal naming its key.
struct EmailConfigurationTests {
    static let minimal = #""host": "smtp.example.com", "from": "no-reply@example.com", "baseURL": "https://id.example.com/""#

    static func parse(_ members: String) throws(ConfigurationError) -> EmailSettings? {
        try ServerConfiguration(json: Data(#"{"email": {\#(members)}}"#.utf8)).email
    }

    @Test func aMinimalBlockTakesTheDefaults() throws {
        let email = try #require(try Self.parse(Self.minimal))
        #expect(email.relay.host == "smtp.example.com" && email.relay.port == 587 && email.relay.security == .starttls)
        #expect(email.relay.username == nil && email.relay.password == nil && email.passwordSource == nil)
        #expect(email.relay.heloName == "example.com")
        #expect(email.relay.connectTimeoutMilliseconds == 10_000 && email.relay.timeoutMilliseconds == 30_000)
        #expect(email.from.address == "no-reply@example.com" && email.from.displayName == nil && email.replyTo == nil)
        #expect(email.baseURL == "https://id.example.com", "the trailing slash is dropped")
        #expect(MailKind.allCases.allSatisfy(email.isEnabled))
        #expect(email.maximumAttempts == 8 && email.firstRetrySeconds == 30 && email.maximumRetrySeconds == 3_600)
        #expect(email.verificationLifetimeSeconds == 86_400 && email.recoveryLinkLifetimeSeconds == 900, "a day, 15 minutes")
        #expect(try ServerConfiguration(json: Data("{}".utf8)).email == nil, "no block, no mail")
    }

    @Test func everyMember() throws {
        let email = try #require(
            try Self.parse(
                #""host": "127.0.0.1", "port": 2525, "security": "plain", "username": "u", "passwordEnvironment": "SMTP_PASSWORD", "caFile": "/etc/ca.pem", "from": "a@example.com", "fromName": "Zoë's app", "replyTo": "help@example.com", "baseURL": "http://127.0.0.1:8080", "messages": {"securityNotices": false, "enrollment": false}, "templates": "/etc/passkeyd/mail", "connectTimeoutSeconds": 2, "timeoutSeconds": 5, "maximumAttempts": 3, "firstRetrySeconds": 1, "maximumRetrySeconds": 2, "retentionSeconds": 3600, "verificationLifetimeSeconds": 600, "recoveryLinkLifetimeSeconds": 300"#
            )
        )
        #expect(email.verificationLifetimeSeconds == 600 && email.recoveryLinkLifetimeSeconds == 300)
        #expect(email.relay.port == 2525 && email.relay.security == .plain && email.relay.caFile == "/etc/ca.pem")
        #expect(email.passwordSource == .environment("SMTP_PASSWORD"))
        #expect(email.from.displayName == "Zoë's app" && email.replyTo?.address == "help@example.com")
        #expect(email.isEnabled(.verifyAddress) && email.isEnabled(.addressChanged) && email.isEnabled(.recovery))
        #expect(!email.isEnabled(.securityNotice) && !email.isEnabled(.enrollment))
        #expect(email.templatesFolder == "/etc/passkeyd/mail" && email.relay.timeoutMilliseconds == 5_000 && email.maximumAttempts == 3)
        #expect(
            try Self.parse(#""host": "smtp.example.com", "security": "tls", "from": "a@example.com", "baseURL": "https://x.example""#)?.relay.port
                == 465
        )
    }

    @Test(arguments: [
        (#""password": "hunter2""#, "email.password"),
        (#""colour": "blue""#, "email.colour"),
        (#""security": "ssl""#, "email.security"),
        (#""port": 0"#, "email.port"),
        (#""username": "u""#, "email.username"),
        (#""passwordFile": "/p""#, "email.username"),
        (#""username": "u", "passwordFile": "/p", "passwordEnvironment": "P""#, "email.passwordFile"),
        (#""replyTo": "not an address""#, "email.replyTo"),
        (#""fromName": "Name\r\nBcc: x@example.net""#, "email.fromName"),
        (#""messages": {"marketing": true}"#, "email.messages.marketing"),
        (#""timeoutSeconds": 0"#, "email.timeoutSeconds"),
        (#""maximumAttempts": 0"#, "email.maximumAttempts"),
        (#""verificationLifetimeSeconds": 299"#, "email.verificationLifetimeSeconds"),
        (#""verificationLifetimeSeconds": 604801"#, "email.verificationLifetimeSeconds"),
        (#""recoveryLinkLifetimeSeconds": 59"#, "email.recoveryLinkLifetimeSeconds"),
        (#""recoveryLinkLifetimeSeconds": 86400"#, "email.recoveryLinkLifetimeSeconds"),
        (#""recoveryLinkLifetimeSeconds": "900""#, "email.recoveryLinkLifetimeSeconds"),
    ])
    func refusalsNameTheKey(extra: String, key: String) {
        #expect(throws: ConfigurationError.self) { try Self.parse(Self.minimal + ", " + extra) }
        do {
            _ = try Self.parse(Self.minimal + ", " + extra)
        } catch {
            #expect(error.key == key)
        }
    }

    @Test(arguments: [
        (#""from": "a@example.com", "baseURL": "https://id.example.com""#, "email.host"),
        (#""host": "smtp.example.com", "baseURL": "https://id.example.com""#, "email.from"),
        (#""host": "smtp.example.com", "from": "a@example.com""#, "email.baseURL"),
        (#""host": "smtp.example.com", "from": "a@example.com", "baseURL": "http://id.example.com""#, "email.baseURL"),
        (#""host": "smtp.example.com", "from": "a@example.com", "baseURL": "https://id.example.com/?x=1""#, "email.baseURL"),
        (#""host": "smtp.example.com", "from": "not-an-address", "baseURL": "https://id.example.com""#, "email.from"),
        (#""host": "smtp.example.com", "security": "plain", "from": "a@example.com", "baseURL": "https://id.example.com""#, "email.host"),
        (#""host": "smtp example.com", "from": "a@example.com", "baseURL": "https://id.example.com""#, "email.host"),
    ])
    func requiredMembersAndUnsafeValuesAreRefused(members: String, key: String) {
        do {
            _ = try Self.parse(members)
            Issue.record("accepted \(members)")
        } catch {
            #expect(error.key == key)
        }
    }

    @Test func thePasswordComesFromAFileOrTheEnvironment() throws {
        let folder = NSTemporaryDirectory() + "passkeyd-email-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "relay password\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        var fromFile = try #require(try Self.parse(Self.minimal + #", "username": "u", "passwordFile": "\#(folder)/password""#))
        try fromFile.load(environment: [:])
        #expect(fromFile.relay.password == "relay password")
        var fromEnvironment = try #require(try Self.parse(Self.minimal + #", "username": "u", "passwordEnvironment": "SMTP_PASSWORD""#))
        try fromEnvironment.load(environment: ["SMTP_PASSWORD": "from the environment"])
        #expect(fromEnvironment.relay.password == "from the environment")
        #expect(throws: ConfigurationError.self) { try fromEnvironment.load(environment: [:]) }
        let unread = try #require(try Self.parse(Self.minimal + #", "username": "u", "passwordFile": "\#(folder)/password""#))
        #expect(unread.relay.password == nil, "parsed only: no password yet")
        #expect(throws: ConfigurationError.self, "no client without the password") {
            try MailWorker(settings: unread, store: InMemoryStore(), time: SystemTime(), random: SystemRandom(), attempts: nil, log: .discarding)
        }
        var missing = try #require(try Self.parse(Self.minimal + #", "username": "u", "passwordFile": "\#(folder)/none""#))
        #expect(throws: ConfigurationError.self) { try missing.load(environment: [:]) }
    }

    @Test func templatesFromAFolderReplaceTheDefaultsAndAreChecked() throws {
        let folder = NSTemporaryDirectory() + "passkeyd-templates-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "Code {{ code }} for {{appName}}\n".write(toFile: folder + "/verifyAddress.subject.txt", atomically: true, encoding: .utf8)
        var email = try #require(try Self.parse(Self.minimal + #", "templates": "\#(folder)""#))
        try email.load(environment: [:])
        let templates = try #require(email.templates)
        #expect(templates[.verifyAddress].subject.render(["code": "123456", "appName": "Ex"], escapingHTML: false) == "Code 123456 for Ex")
        #expect(templates[.verifyAddress].text.names == ["appName", "code", "link", "expiresMinutes"], "the default text stays")
        try "{{ link }} {{password}}".write(toFile: folder + "/recovery.html", atomically: true, encoding: .utf8)
        do {
            try email.load(environment: [:])
            Issue.record("a template with an unknown name was accepted")
        } catch {
            #expect(error.key == "email.templates" && error.reason.contains("recovery.html"))
        }
    }

    @Test func theShippedTemplatesUseEveryNameTheirMessageOffers() throws {
        let templates = try MailTemplateSet(folder: nil)
        for kind in MailKind.allCases {
            let parts = templates[kind]
            #expect(parts.subject.names.union(parts.text.names).union(parts.html.names) == kind.names, "\(kind)")
            #expect(parts.text.names == kind.names, "\(kind): the text part has every value")
        }
    }
}
