import ConfigurationReading
import Foundation

/// `email.bounces`: the providers whose bounce and complaint webhooks passkeyd takes at `POST /email/events/{provider}`,
/// each with its secret from a file or the environment (never the configuration file). A provider not configured
/// answers 404.
package struct BounceSettings: Sendable {
    /// The Mailgun webhook signing key's source, and the key once read (`load`).
    package var mailgunKeySource: EmailSettings.PasswordSource?
    package var mailgunSigningKey: [UInt8]?
    /// Postmark's HTTP Basic user name, its password's source, and the password once read.
    package var postmarkUsername: String?
    package var postmarkPasswordSource: EmailSettings.PasswordSource?
    package var postmarkPassword: String?
    /// Resend's webhook signing secret's source (`whsec_…`, Standard Webhooks), and its key bytes once read.
    package var resendSecretSource: EmailSettings.PasswordSource?
    package var resendKey: [UInt8]?
    /// How far a signed timestamp may be from now, either way (Mailgun): 10 minutes by default, 1 minute to a day.
    package var maximumAgeSeconds = 600

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["mailgun", "postmark", "resend", "maximumAgeSeconds"])
        maximumAgeSeconds = try reader.integer("maximumAgeSeconds", in: 60...86_400) ?? maximumAgeSeconds
        if let mailgun = try reader.object("mailgun") {
            try Self.refuseInline(mailgun, "signingKey")
            try mailgun.only(["signingKeyFile", "signingKeyEnvironment"])
            mailgunKeySource = try Self.source(mailgun, file: "signingKeyFile", environment: "signingKeyEnvironment")
        }
        if let postmark = try reader.object("postmark") {
            try Self.refuseInline(postmark, "password")
            try postmark.only(["username", "passwordFile", "passwordEnvironment"])
            let username = try postmark.requiredString("username")
            guard !username.isEmpty, username.utf8.count <= 128, !username.contains(":"),
                username.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
            else {
                throw ConfigurationError(.invalidValue, key: postmark.key("username"), "must be 1 to 128 printable ASCII characters without ':'")
            }
            postmarkUsername = username
            postmarkPasswordSource = try Self.source(postmark, file: "passwordFile", environment: "passwordEnvironment")
        }
        if let resend = try reader.object("resend") {
            try Self.refuseInline(resend, "signingSecret")
            try resend.only(["signingSecretFile", "signingSecretEnvironment"])
            resendSecretSource = try Self.source(resend, file: "signingSecretFile", environment: "signingSecretEnvironment")
        }
    }

    private static func refuseInline(_ reader: ConfigurationReader, _ name: String) throws(ConfigurationError) {
        guard reader.has(name) else { return }
        throw ConfigurationError(
            .invalidValue,
            key: reader.key(name),
            "is not read from the configuration file: use \(name)File (a file only passkeyd can read) or \(name)Environment"
        )
    }

    private static func source(
        _ reader: ConfigurationReader,
        file: String,
        environment: String
    ) throws(ConfigurationError) -> EmailSettings.PasswordSource {
        switch (try reader.string(file), try reader.string(environment)) {
        case (let path?, nil): return .file(path)
        case (nil, let name?): return .environment(name)
        case (nil, nil): throw ConfigurationError(.missingValue, key: reader.key(file), "give \(file) or \(environment)")
        case (_?, _?): throw ConfigurationError(.invalidValue, key: reader.key(file), "give \(file) or \(environment), not both")
        }
    }

    /// Reads the secrets (a file's trailing line ends dropped); each must be at least 16 bytes.
    package mutating func load(environment: [String: String]) throws(ConfigurationError) {
        if let source = mailgunKeySource {
            mailgunSigningKey = Array(try Self.secret(source, key: "email.bounces.mailgun.signingKey", environment: environment).utf8)
        }
        if let source = postmarkPasswordSource {
            postmarkPassword = try Self.secret(source, key: "email.bounces.postmark.password", environment: environment)
        }
        if let source = resendSecretSource {
            let key = "email.bounces.resend.signingSecret"
            resendKey = try Self.standardWebhooksKey(try Self.secret(source, key: key, environment: environment), key: key)
        }
    }

    /// The key bytes of a Standard Webhooks secret (Svix's): `whsec_` and standard base64 of 24 to 64 bytes.
    private static func standardWebhooksKey(_ text: String, key: String) throws(ConfigurationError) -> [UInt8] {
        var encoded = String(text.dropFirst(6))
        while encoded.utf8.count % 4 != 0 { encoded += "=" }
        guard text.hasPrefix("whsec_"), let bytes = Data(base64Encoded: encoded).map(Array.init), (24...64).contains(bytes.count) else {
            throw ConfigurationError(.invalidValue, key: key, "must be the signing secret Resend shows: whsec_ and the base64 of 24 to 64 bytes")
        }
        return bytes
    }

    private static func secret(
        _ source: EmailSettings.PasswordSource,
        key: String,
        environment: [String: String]
    ) throws(ConfigurationError) -> String {
        let value: String
        let named: String
        switch source {
        case .file(let path):
            named = key + "File"
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(.invalidFile, key: named, "cannot read \(path)")
            }
            value = text.trimmingCharacters(in: .newlines)
        case .environment(let name):
            named = key + "Environment"
            guard let text = environment[name] else {
                throw ConfigurationError(.missingValue, key: named, "the environment variable \(name) is not set")
            }
            value = text
        }
        guard value.utf8.count >= 16, value.utf8.count <= 1_024 else {
            throw ConfigurationError(.invalidValue, key: named, "must be 16 to 1024 bytes")
        }
        return value
    }
}
