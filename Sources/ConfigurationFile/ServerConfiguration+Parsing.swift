import AccessTokens
import AssociatedDomains
import ConfigurationReading
import Email
import FederatedIdentity
import Foundation
import JSON
import RateLimiting
import WebAuthnCore

extension ServerConfiguration {
    /// Parses a JSON configuration; unknown keys are refused so that a typo cannot silently fall back to a default.
    /// Pure: the files the configuration names are read by `load(json:)` (`ServerConfiguration+Loading.swift`).
    public init(json data: Data) throws(ConfigurationError) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(.invalidJSON, key: "", "the configuration is not valid JSON")
        }
        self.init()
        let reader = try ConfigurationReader(root, path: "")
        try reader.only([
            "relyingParty", "listen", "tls", "dataDirectory", "database", "sessions", "challenges", "attestation",
            "algorithms", "associatedDomains", "www", "threads", "workers", "limits", "rateLimits", "apple", "webhooks", "log", "node",
            "metrics",
            "admin", "recovery",
            "tokens", "backends", "cors", "oidc", "passwords", "identityProviders",
            "email",
        ])
        if let block = try reader.object("relyingParty") { try parseRelyingParty(block) }
        if let block = try reader.object("listen") { try parseListen(block) }
        if let block = try reader.object("tls") { try parseTLS(block) }
        dataDirectory = try reader.string("dataDirectory") ?? dataDirectory
        if let block = try reader.object("database") { try parseDatabase(block) }
        if let block = try reader.object("sessions") { try parseSessions(block) }
        if let block = try reader.object("challenges") { try parseChallenges(block) }
        attestation = try AttestationSettings(reader.value("attestation"))
        if let names = try reader.strings("algorithms") { try parseAlgorithms(names) }
        if let block = try reader.object("associatedDomains") { associatedDomains = try AssociatedDomains(block) }
        if reader.has("www") { wwwDirectory = try reader.string("www") }
        threads = try reader.integer("threads", in: 1...64) ?? threads
        workers = try reader.integer("workers", in: 1...1024)
        if let block = try reader.object("limits") { try parseLimits(block) }
        if let block = try reader.object("rateLimits") { rateLimits = try RateLimits(block) }
        if let block = try reader.object("apple") { apple = try AppleConfiguration(block) }
        if let block = try reader.object("identityProviders") { identityProviders = try IdentityProviderSettings.list(block) }
        if let value = reader.value("webhooks"), value != .null { try parseWebhooks(value) }
        if let block = try reader.object("log") { try parseLog(block) }
        if let block = try reader.object("node") { try parseNode(block) }
        if let block = try reader.object("metrics") {
            try block.only(["enabled"])
            metricsEnabled = try block.bool("enabled") ?? metricsEnabled
        }
        if let block = try reader.object("admin") { try parseAdmin(block) }
        if let block = try reader.object("recovery") { try parseRecovery(block) }
        try checkAdministration()
        if let block = try reader.object("tokens") { tokens = try TokenSettings(block) }
        if let block = try reader.object("passwords") { passwords = try PasswordSettings(block) }
        if let value = reader.value("backends"), value != .null {
            guard let items = value.arrayValue else {
                throw ConfigurationError(.invalidValue, key: "backends", "must be a list of {\"name\", \"keySHA256\"}")
            }
            backends = try BackendKey.list(items, key: "backends")
        }
        if let block = try reader.object("cors") { cors = try CORSSettings(block) }
        if let block = try reader.object("oidc") { oidc = try OIDCSettings(block) }
        // An OpenID client's access tokens name it as their audience: it must not be one of the first-party audiences,
        // or they would pass where only the app's own tokens may.
        for client in oidc.clients where tokenAudiences.contains(client.id) {
            throw ConfigurationError(.invalidValue, key: "oidc.clients", "\(client.id) is also a token audience (tokens.audiences)")
        }
        if let block = try reader.object("email") { email = try EmailSettings(block) }
        for origin in origins { try associatedDomains.check(configuredOrigin: origin, key: "relyingParty.origins") }
    }
}
