import ConfigurationReading
import Foundation
import OutboundHTTP

/// The `apple` block: Sign in with Apple. Without it every Apple endpoint answers `400 apple_not_configured`.
public struct AppleConfiguration: Sendable, Equatable {
    /// The 10-character Team ID: `iss` of the client secret.
    public var teamID: String
    /// The app bundle IDs: the audience of identity tokens from native sign-in.
    public var bundleIDs: [String]
    /// The Services IDs: the audience of identity tokens from the web and Android.
    public var servicesIDs: [String]
    /// The Key ID of the Sign in with Apple key (`kid` of the client secret).
    public var keyID: String
    /// The path of the `.p8` private key file.
    public var privateKeyPath: String
    /// Apple's authorization endpoint, where the web flow (`GET /auth/apple/start`) sends the browser.
    public var authorizeURL = URL(string: "https://appleid.apple.com/auth/authorize")!
    public var keysURL = URL(string: "https://appleid.apple.com/auth/keys")!
    public var tokenURL = URL(string: "https://appleid.apple.com/auth/token")!
    public var revokeURL = URL(string: "https://appleid.apple.com/auth/revoke")!
    /// Apple's user migration endpoint (app transfers between teams).
    public var migrationURL = URL(string: "https://appleid.apple.com/auth/usermigrationinfo")!
    /// The accepted `iss` values of identity tokens and notifications.
    public var issuers = ["https://appleid.apple.com"]

    /// Every accepted audience: the bundle IDs, then the Services IDs.
    public var audiences: [String] { bundleIDs + servicesIDs }

    public init(teamID: String, bundleIDs: [String], servicesIDs: [String], keyID: String, privateKeyPath: String) {
        self.teamID = teamID
        self.bundleIDs = bundleIDs
        self.servicesIDs = servicesIDs
        self.keyID = keyID
        self.privateKeyPath = privateKeyPath
    }

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only([
            "teamID", "bundleIDs", "servicesIDs", "keyID", "privateKey", "authorizeURL", "jwksURL", "tokenURL", "revokeURL", "migrationURL",
            "issuers",
        ])
        teamID = try reader.requiredString("teamID")
        guard teamID.count == 10, teamID.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw ConfigurationError(.invalidValue, key: reader.key("teamID"), "must be the 10-character Team ID (upper-case letters and digits)")
        }
        keyID = try reader.requiredString("keyID")
        privateKeyPath = try reader.requiredString("privateKey")
        bundleIDs = try reader.strings("bundleIDs") ?? []
        servicesIDs = try reader.strings("servicesIDs") ?? []
        guard !bundleIDs.isEmpty || !servicesIDs.isEmpty else {
            throw ConfigurationError(.missingValue, key: reader.key("bundleIDs"), "bundleIDs or servicesIDs must list at least one client ID")
        }
        authorizeURL = try Self.url(reader, "authorizeURL") ?? authorizeURL
        keysURL = try Self.url(reader, "jwksURL") ?? keysURL
        tokenURL = try Self.url(reader, "tokenURL") ?? tokenURL
        revokeURL = try Self.url(reader, "revokeURL") ?? revokeURL
        migrationURL = try Self.url(reader, "migrationURL") ?? migrationURL
        if let issuers = try reader.strings("issuers") {
            guard !issuers.isEmpty else { throw ConfigurationError(.invalidValue, key: reader.key("issuers"), "must list at least one issuer") }
            self.issuers = issuers
        }
    }

    /// An https:// URL, or http:// to a loopback address (for a local stand-in of Apple in tests and staging): the
    /// outbound client's own rule, checked here so that a refused URL stops the start-up with the key named.
    private static func url(_ reader: ConfigurationReader, _ name: String) throws(ConfigurationError) -> URL? {
        guard let text = try reader.string(name) else { return nil }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty, let url = components.url,
            components.user == nil, components.password == nil, components.fragment == nil
        else { throw ConfigurationError(.invalidValue, key: reader.key(name), "is not a URL") }
        do throws(HTTPClientError) {
            try HTTPClient.validate(url: text)
        } catch {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key(name),
                "must be an https:// URL (http:// only to a loopback address): \(error.reason)"
            )
        }
        return url
    }
}
