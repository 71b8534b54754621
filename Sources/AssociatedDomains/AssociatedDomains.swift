import ConfigurationReading

/// The `associatedDomains` block: the one source of truth for the well-known files and for the origins they imply.
/// Apple's `webcredentials`, `applinks` and `appclips` make `apple-app-site-association`; `android` makes
/// `assetlinks.json` and the apps' `android:apk-key-hash:` origins; `relatedOrigins` makes `/.well-known/webauthn`
/// and are accepted in ceremonies; `passkeyEndpoints` makes `/.well-known/passkey-endpoints`.
public struct AssociatedDomains: Sendable {
    var appleAppSiteAssociation: AppleAppSiteAssociation?
    public var android: [AndroidApp] = []
    var relatedOrigins: RelatedOrigins?
    var passkeyEndpoints: PasskeyEndpoints?
    /// Things that do not stop start-up but may stop a device (each names its key); `passkeyd serve` logs them.
    public var warnings: [String] = []

    static let maximumAndroidApps = 100

    public init() {}

    /// `webcredentials.apps`: the apps that may use the site's passkeys.
    public var webCredentialApps: [String] { appleAppSiteAssociation?.webCredentialApps ?? [] }

    /// The origins the block adds to the relying party's: each Android app's, then the related origins.
    public var origins: [String] { android.flatMap(\.origins) + (relatedOrigins?.origins ?? []) }

    public init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(AppleAppSiteAssociation.services.union(["android", "relatedOrigins", "passkeyEndpoints"]))
        appleAppSiteAssociation = try AppleAppSiteAssociation(reader)
        if let apps = try reader.objects("android") {
            guard apps.count <= Self.maximumAndroidApps else {
                throw ConfigurationError(.invalidValue, key: reader.key("android"), "lists more than \(Self.maximumAndroidApps) apps")
            }
            for app in apps {
                let parsed = try AndroidApp(app)
                guard !android.contains(where: { $0.packageName == parsed.packageName }) else {
                    throw ConfigurationError(
                        .invalidValue,
                        key: app.key("package"),
                        "\(parsed.packageName) is listed twice: give one entry all of its fingerprints"
                    )
                }
                android.append(parsed)
            }
        }
        if let origins = try reader.strings("relatedOrigins") {
            let related = try RelatedOrigins(origins, key: reader.key("relatedOrigins"))
            relatedOrigins = related
            if let warning = related.labelWarning { warnings.append(reader.key("relatedOrigins") + ": " + warning) }
        }
        if let endpoints = try reader.object("passkeyEndpoints") { passkeyEndpoints = try PasskeyEndpoints(endpoints) }
    }

    /// An `android:apk-key-hash:` origin of `relyingParty.origins` must be the base64url of 32 bytes and, when the
    /// block lists Android apps, one of their fingerprints: an origin that contradicts the published file would let
    /// an app sign in that the domain never vouched for (or lock out the one it does).
    public func check(configuredOrigin origin: String, key: String) throws(ConfigurationError) {
        guard origin.hasPrefix(CertificateFingerprint.originPrefix) else { return }
        guard let fingerprint = CertificateFingerprint(origin: origin) else {
            throw ConfigurationError(
                .invalidValue,
                key: key,
                "\(origin.prefix(120)) is not android:apk-key-hash: and the unpadded base64url of a 32-byte SHA-256 fingerprint"
            )
        }
        guard android.isEmpty || android.contains(where: { $0.fingerprints.contains(fingerprint) }) else {
            throw ConfigurationError(
                .invalidValue,
                key: key,
                "\(origin) is the origin of certificate \(fingerprint.published), which no app of associatedDomains.android lists; "
                    + "add the fingerprint there (passkeyd derives the origin) and remove it here"
            )
        }
    }
}
