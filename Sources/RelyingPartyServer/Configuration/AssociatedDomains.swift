import WebAuthnCore

/// The `associatedDomains` block: what the well-known files publish.
public struct AssociatedDomains: Sendable {
    /// `webcredentials.apps`: "TEAMID.bundle.id" entries.
    public var webCredentialApps: [String] = []
    /// `applinks` and `appclips`, passed through as the AASA file expects them (raw JSON).
    public var appLinks: JSONValue?
    public var appClips: JSONValue?
    public var android: [AndroidApp] = []
    /// Related origins for `/.well-known/webauthn`.
    public var relatedOrigins: [String] = []
    public var enrollURL: String?
    public var manageURL: String?

    public struct AndroidApp: Sendable, Equatable {
        public var packageName: String
        public var certificateFingerprints: [String]
    }

    public init() {}
}

extension AssociatedDomains {
    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["webcredentials", "applinks", "appclips", "android", "relatedOrigins", "passkeyEndpoints"])
        if let credentials = try reader.object("webcredentials") {
            try credentials.only(["apps"])
            webCredentialApps = try credentials.strings("apps") ?? []
            for app in webCredentialApps where !Self.isAppIdentifier(app) {
                throw ConfigurationError(
                    .invalidValue,
                    key: credentials.key("apps"),
                    "\(app) is not TEAMID.bundle.id (a 10-character team ID, a dot, a bundle ID)"
                )
            }
        }
        appLinks = reader.value("applinks")
        appClips = reader.value("appclips")
        if let list = reader.value("android") {
            guard let items = list.arrayValue else { throw ConfigurationError(.invalidValue, key: reader.key("android"), "must be a list") }
            for (index, item) in items.enumerated() {
                let app = try ConfigurationReader(item, path: reader.key("android") + "[\(index)]")
                try app.only(["package", "sha256CertFingerprints"])
                let package = try app.requiredString("package")
                let fingerprints = try app.strings("sha256CertFingerprints") ?? []
                for fingerprint in fingerprints where !Self.isFingerprint(fingerprint) {
                    throw ConfigurationError(
                        .invalidValue,
                        key: app.key("sha256CertFingerprints"),
                        "\(fingerprint) is not 32 colon-separated hex bytes"
                    )
                }
                android.append(AndroidApp(packageName: package, certificateFingerprints: fingerprints))
            }
        }
        relatedOrigins = try reader.strings("relatedOrigins") ?? []
        if let endpoints = try reader.object("passkeyEndpoints") {
            try endpoints.only(["enroll", "manage"])
            enrollURL = try endpoints.string("enroll")
            manageURL = try endpoints.string("manage")
        }
    }

    static func isAppIdentifier(_ text: String) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 1)
        return parts.count == 2 && parts[0].count == 10 && parts[0].allSatisfy { $0.isUppercase || $0.isNumber } && !parts[1].isEmpty
    }

    static func isFingerprint(_ text: String) -> Bool {
        let bytes = text.split(separator: ":", omittingEmptySubsequences: false)
        return bytes.count == 32 && bytes.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
