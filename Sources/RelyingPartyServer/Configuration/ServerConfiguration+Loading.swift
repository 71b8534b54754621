import Foundation
import WebAuthnCore

extension ServerConfiguration {
    /// Reads a JSON configuration file; unknown keys are refused so that a typo cannot silently fall back to a default.
    public static func load(path: String) throws(ConfigurationError) -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(key: "", reason: "cannot read the configuration file \(path)")
        }
        return try load(json: data)
    }

    public static func load(json data: Data) throws(ConfigurationError) -> ServerConfiguration {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(key: "", reason: "the configuration is not valid JSON")
        }
        var configuration = ServerConfiguration()
        let reader = try ConfigurationReader(root, path: "")
        try reader.only([
            "relyingParty", "listen", "tls", "dataDirectory", "database", "sessions", "challenges", "attestation",
            "algorithms", "associatedDomains", "www", "threads", "limits", "rateLimits", "apple",
        ])
        if let relyingParty = try reader.object("relyingParty") {
            try relyingParty.only(["id", "name", "origins"])
            if let id = try relyingParty.string("id") {
                guard Self.isDomain(id) else { throw ConfigurationError(key: "relyingParty.id", reason: "must be a domain name such as example.com") }
                configuration.relyingPartyID = id
            }
            configuration.relyingPartyName = try relyingParty.string("name") ?? configuration.relyingPartyName
            if let origins = try relyingParty.strings("origins") {
                guard !origins.isEmpty else { throw ConfigurationError(key: "relyingParty.origins", reason: "must list at least one origin") }
                for origin in origins where !Self.isOrigin(origin) {
                    throw ConfigurationError(
                        key: "relyingParty.origins",
                        reason: "\(origin) is not an https:// origin (http:// only for localhost) or an android:apk-key-hash: origin"
                    )
                }
                configuration.origins = origins
            } else if relyingParty.has("id") {
                configuration.origins = ["https://" + configuration.relyingPartyID]
            }
        }
        if let listen = try reader.object("listen") {
            try listen.only(["https", "http"])
            if listen.has("https") { configuration.httpsAddress = try listen.string("https") }
            configuration.httpAddress = try listen.string("http")
            for (key, address) in [("listen.https", configuration.httpsAddress), ("listen.http", configuration.httpAddress)] {
                if let address, !Self.isAddress(address) { throw ConfigurationError(key: key, reason: "must be \"host:port\"") }
            }
            guard configuration.httpsAddress != nil || configuration.httpAddress != nil else {
                throw ConfigurationError(key: "listen", reason: "needs https or http")
            }
        }
        if let tls = try reader.object("tls") {
            try tls.only(["certificate", "privateKey"])
            configuration.certificateFile = try tls.string("certificate")
            configuration.privateKeyFile = try tls.string("privateKey")
            guard (configuration.certificateFile == nil) == (configuration.privateKeyFile == nil) else {
                throw ConfigurationError(key: "tls", reason: "certificate and privateKey go together")
            }
        }
        configuration.dataDirectory = try reader.string("dataDirectory") ?? configuration.dataDirectory
        if let database = try reader.object("database") {
            try database.only(["sqlite", "postgres", "poolSize"])
            configuration.sqlitePath = try database.string("sqlite")
            configuration.postgresConnectionString = try database.string("postgres")
            configuration.postgresPoolSize = try database.integer("poolSize", in: 1...1000)
            if configuration.sqlitePath != nil, configuration.postgresConnectionString != nil {
                throw ConfigurationError(key: "database", reason: "choose sqlite or postgres, not both")
            }
            if configuration.postgresConnectionString?.isEmpty == true {
                throw ConfigurationError(
                    key: "database.postgres",
                    reason: "must be a libpq connection string such as \"host=db.internal dbname=passkeyd user=passkeyd\""
                )
            }
            if configuration.postgresPoolSize != nil, configuration.postgresConnectionString == nil {
                throw ConfigurationError(key: "database.poolSize", reason: "applies to database.postgres only")
            }
        }
        if let sessions = try reader.object("sessions") {
            try sessions.only(["lifetimeSeconds"])
            configuration.sessionLifetimeSeconds =
                try sessions.integer("lifetimeSeconds", in: 60...31_536_000) ?? configuration.sessionLifetimeSeconds
        }
        if let challenges = try reader.object("challenges") {
            try challenges.only(["lifetimeSeconds"])
            configuration.challengeLifetimeSeconds =
                try challenges.integer("lifetimeSeconds", in: 10...3600) ?? configuration.challengeLifetimeSeconds
        }
        configuration.attestation = try AttestationSettings(reader.value("attestation"))
        if let names = try reader.strings("algorithms") {
            var algorithms: [COSEAlgorithm] = []
            for name in names {
                guard let algorithm = Self.algorithmNames[name] else {
                    throw ConfigurationError(
                        key: "algorithms",
                        reason: "\(name) is not one of \(Self.algorithmNames.keys.sorted().joined(separator: ", "))"
                    )
                }
                algorithms.append(algorithm)
            }
            guard !algorithms.isEmpty else { throw ConfigurationError(key: "algorithms", reason: "must not be empty") }
            configuration.algorithms = algorithms
        }
        if let domains = try reader.object("associatedDomains") {
            configuration.associatedDomains = try AssociatedDomains(domains)
        }
        if reader.has("www") { configuration.wwwDirectory = try reader.string("www") }
        configuration.threads = try reader.integer("threads", in: 1...64) ?? configuration.threads
        if let limits = try reader.object("limits") {
            try limits.only(["maximumBodySize"])
            configuration.maximumBodySize = try limits.integer("maximumBodySize", in: 1024...10_485_760) ?? configuration.maximumBodySize
        }
        if let limits = try reader.object("rateLimits") {
            configuration.rateLimits = try RateLimits(limits)
        }
        if let apple = try reader.object("apple") {
            configuration.apple = try AppleConfiguration(apple)
        }
        return configuration
    }

    static let algorithmNames: [String: COSEAlgorithm] = [
        "ES256": .es256, "ES384": .es384, "ES512": .es512, "EdDSA": .eddsa, "Ed25519": .ed25519, "RS256": .rs256,
        "RS384": .rs384, "RS512": .rs512, "PS256": .ps256, "PS384": .ps384, "PS512": .ps512, "RS1": .rs1,
    ]

    static func isDomain(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 253 && !text.hasPrefix(".") && !text.hasSuffix(".")
            && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." } && text == text.lowercased()
    }

    static func isOrigin(_ text: String) -> Bool {
        if text.hasPrefix("android:apk-key-hash:") { return text.count > "android:apk-key-hash:".count }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
            components.path.isEmpty, components.query == nil, components.fragment == nil
        else { return false }
        return components.scheme == "https" || (components.scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost")))
    }

    static func isAddress(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return false }
        return (0...65535).contains(port) && colon != text.startIndex
    }
}
