import ConfigurationReading
import JSON

/// The contents of `apple-app-site-association`, validated: `webcredentials.apps` (passkeys and passwords),
/// `applinks` (universal links, Apple's current `details[].appIDs` + `components[]` schema or the legacy
/// `appID` + `paths` one) and `appclips.apps`. The same rules read `associatedDomains` at start-up and a domain's
/// file in `passkeyd check-domain`, so what passkeyd publishes is what it would accept from anyone.
struct AppleAppSiteAssociation: Sendable, Equatable {
    /// The services read here; a file may hold others (`activitycontinuation`), which are not checked.
    static let services: Set<String> = ["webcredentials", "applinks", "appclips"]

    var webCredentialApps: [String] = []
    /// Validated, published as written.
    var appLinks: JSONValue?
    var appClipApps: [String] = []

    /// Nil when `reader` has none of the three services.
    init?(_ reader: ConfigurationReader) throws(ConfigurationError) {
        guard Self.services.contains(where: reader.has) else { return nil }
        if let credentials = try reader.object("webcredentials") {
            try credentials.only(["apps"])
            webCredentialApps = try Self.appIdentifiers(credentials, "apps")
        }
        if let links = try reader.object("applinks") {
            try Self.validateAppLinks(links)
            appLinks = reader.value("applinks")
        }
        if let clips = try reader.object("appclips") {
            try clips.only(["apps"])
            appClipApps = try Self.appIdentifiers(clips, "apps")
        }
    }

    /// The file's JSON object.
    var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if !webCredentialApps.isEmpty { members["webcredentials"] = .object(["apps": .array(webCredentialApps.map(JSONValue.string))]) }
        if let appLinks { members["applinks"] = appLinks }
        if !appClipApps.isEmpty { members["appclips"] = .object(["apps": .array(appClipApps.map(JSONValue.string))]) }
        return .object(members)
    }

    /// Every app ID of `applinks`, in both schemas.
    var appLinkApps: [String] {
        guard let details = appLinks?.objectValue?["details"]?.arrayValue else { return [] }
        return details.flatMap { detail in
            (detail.objectValue?["appIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                + [detail.objectValue?["appID"]?.stringValue].compactMap { $0 }
        }
    }

    /// `<team ID>.<bundle ID>`: a 10-character Team ID of upper-case ASCII letters and digits, a dot, and a bundle ID
    /// (ASCII letters, digits, `-` and `.`, no empty part, at most 255 characters).
    static func isAppIdentifier(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 10,
            parts[0].utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        let bundle = parts[1]
        return !bundle.isEmpty && bundle.utf8.count <= 255
            && bundle.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
            && bundle.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
    }

    /// A required, non-empty list of distinct app IDs.
    private static func appIdentifiers(_ reader: ConfigurationReader, _ name: String) throws(ConfigurationError) -> [String] {
        guard let apps = try reader.strings(name) else {
            throw ConfigurationError(.missingValue, key: reader.key(name), "must list app IDs (TEAMID.bundle.id)")
        }
        guard !apps.isEmpty else {
            throw ConfigurationError(.invalidValue, key: reader.key(name), "must list at least one app ID (TEAMID.bundle.id)")
        }
        for app in apps where !isAppIdentifier(app) {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key(name),
                "\(app.prefix(100)) is not TEAMID.bundle.id (a 10-character team ID of upper-case letters and digits, a dot, a bundle ID)"
            )
        }
        guard Set(apps).count == apps.count else { throw ConfigurationError(.invalidValue, key: reader.key(name), "lists an app ID twice") }
        return apps
    }

    /// `applinks`: `details` (each in the current or the legacy form, or both for iOS 12 and later at once), optional
    /// `defaults` and `substitutionVariables`, and the legacy `apps`, which must be the empty list.
    private static func validateAppLinks(_ links: ConfigurationReader) throws(ConfigurationError) {
        try links.only(["details", "defaults", "substitutionVariables", "apps"])
        if let apps = try links.list("apps"), !apps.isEmpty {
            throw ConfigurationError(.invalidValue, key: links.key("apps"), "must be the empty list (the legacy schema's placeholder) or absent")
        }
        guard let details = try links.objects("details") else {
            throw ConfigurationError(.missingValue, key: links.key("details"), "must list the apps and the paths they open")
        }
        guard !details.isEmpty else { throw ConfigurationError(.invalidValue, key: links.key("details"), "must list at least one app") }
        if let defaults = try links.object("defaults") { try validateDefaults(defaults) }
        if let variables = try links.object("substitutionVariables") {
            for name in variables.members.keys.sorted() {
                guard let values = try variables.strings(name), !values.isEmpty else {
                    throw ConfigurationError(.invalidValue, key: variables.key(name), "must list at least one string")
                }
            }
        }
        for detail in details { try validateDetail(detail) }
    }

    private static func validateDetail(_ detail: ConfigurationReader) throws(ConfigurationError) {
        try detail.only(["appIDs", "components", "defaults", "appID", "paths"])
        guard detail.has("appIDs") || detail.has("appID") else {
            throw ConfigurationError(.missingValue, key: detail.key("appIDs"), "each detail names its apps (appIDs, or the legacy appID)")
        }
        if detail.has("appIDs") || detail.has("components") {
            _ = try appIdentifiers(detail, "appIDs")
            guard let components = try detail.objects("components") else {
                throw ConfigurationError(.missingValue, key: detail.key("components"), "goes with appIDs: the URL components the apps open")
            }
            guard !components.isEmpty else {
                throw ConfigurationError(.invalidValue, key: detail.key("components"), "must list at least one component")
            }
            for component in components { try validateComponent(component) }
        }
        if detail.has("appID") || detail.has("paths") {
            guard let app = try detail.string("appID") else {
                throw ConfigurationError(.missingValue, key: detail.key("appID"), "goes with the legacy paths: the app that opens them")
            }
            guard isAppIdentifier(app) else {
                throw ConfigurationError(.invalidValue, key: detail.key("appID"), "\(app.prefix(100)) is not TEAMID.bundle.id")
            }
            guard let paths = try detail.strings("paths"), !paths.isEmpty else {
                throw ConfigurationError(
                    .missingValue,
                    key: detail.key("paths"),
                    "goes with the legacy appID: at least one path pattern such as /open/*"
                )
            }
            for path in paths where !(path.hasPrefix("/") || path.hasPrefix("*") || path.hasPrefix("NOT ")) {
                throw ConfigurationError(.invalidValue, key: detail.key("paths"), "\(path.prefix(100)) is not a path pattern (/…, *, or NOT /…)")
            }
        }
        if let defaults = try detail.object("defaults") { try validateDefaults(defaults) }
    }

    /// A component: at least one of `/` (path), `?` (query: a pattern, or an object of item patterns) and `#`
    /// (fragment), with `exclude`, `comment`, `caseSensitive` and `percentEncoded`.
    private static func validateComponent(_ component: ConfigurationReader) throws(ConfigurationError) {
        try component.only(["/", "?", "#", "exclude", "comment", "caseSensitive", "percentEncoded"])
        guard component.has("/") || component.has("?") || component.has("#") else {
            throw ConfigurationError(.missingValue, key: component.path, "must match a path (\"/\"), a query (\"?\") or a fragment (\"#\")")
        }
        if let path = try component.string("/"), !(path.hasPrefix("/") || path.hasPrefix("*") || path.hasPrefix("?")) {
            throw ConfigurationError(.invalidValue, key: component.key("/"), "\(path.prefix(100)) is not a path pattern (it starts with /, * or ?)")
        }
        if let query = component.value("?"), query.stringValue == nil {
            guard query.objectValue != nil else {
                throw ConfigurationError(.invalidValue, key: component.key("?"), "must be a query pattern or an object of query item patterns")
            }
            let items = try ConfigurationReader(query, path: component.key("?"))
            for name in items.members.keys.sorted() { _ = try items.requiredString(name) }
        }
        _ = try component.string("#")
        _ = try component.string("comment")
        _ = try component.bool("exclude")
        _ = try component.bool("caseSensitive")
        _ = try component.bool("percentEncoded")
    }

    private static func validateDefaults(_ defaults: ConfigurationReader) throws(ConfigurationError) {
        try defaults.only(["caseSensitive", "percentEncoded"])
        _ = try defaults.bool("caseSensitive")
        _ = try defaults.bool("percentEncoded")
    }
}
