import ConfigurationReading
import JSON

/// One app of `associatedDomains.android`: its package, the SHA-256 fingerprints of its signing certificates and the
/// Digital Asset Links relations it is granted. The one source of truth for both `assetlinks.json` (one statement per
/// app) and the app's origins in passkey ceremonies (`android:apk-key-hash:…`, one per fingerprint).
public struct AndroidApp: Sendable, Equatable {
    /// Credential Manager's relation: the app may use the site's passkeys and passwords.
    static let loginCredentials = "delegate_permission/common.get_login_creds"
    /// App Links' relation: the app opens the site's URLs.
    static let allURLs = "delegate_permission/common.handle_all_urls"
    /// The relations of an app that lists none: Google's Credential Manager guidance lists both.
    static let defaultRelations = [loginCredentials, allURLs]
    /// Bounds on what one app lists (a signing-key rotation needs two fingerprints; Google's own examples show one).
    static let maximumFingerprints = 16
    static let maximumRelations = 16

    public let packageName: String
    let fingerprints: [CertificateFingerprint]
    public let relations: [String]

    /// The fingerprints as published: upper case, colon-separated.
    public var certificateFingerprints: [String] { fingerprints.map(\.published) }

    /// The app's origins in passkey ceremonies: one per fingerprint when the app is granted `get_login_creds`
    /// (without it, Credential Manager does not let the app use the site's passkeys), none otherwise.
    public var origins: [String] { relations.contains(Self.loginCredentials) ? fingerprints.map(\.origin) : [] }

    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["package", "sha256CertFingerprints", "relations"])
        packageName = try reader.requiredString("package")
        guard Self.isPackageName(packageName) else {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("package"),
                "\(packageName) is not an Android application ID (two or more dot-separated parts, each a letter then letters, digits or _)"
            )
        }
        guard let texts = try reader.strings("sha256CertFingerprints") else {
            throw ConfigurationError(
                .missingValue,
                key: reader.key("sha256CertFingerprints"),
                "must list the SHA-256 fingerprint of the app's signing certificate"
            )
        }
        guard (1...Self.maximumFingerprints).contains(texts.count) else {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("sha256CertFingerprints"),
                "must list 1 to \(Self.maximumFingerprints) fingerprints"
            )
        }
        let fingerprints = try CertificateFingerprint.parse(texts, key: reader.key("sha256CertFingerprints"))
        if let twice = fingerprints.enumerated().first(where: { index, fingerprint in fingerprints[..<index].contains(fingerprint) }) {
            throw ConfigurationError(.invalidValue, key: reader.key("sha256CertFingerprints"), "\(twice.element.published) is listed twice")
        }
        self.fingerprints = fingerprints
        let relations = try reader.strings("relations") ?? Self.defaultRelations
        guard (1...Self.maximumRelations).contains(relations.count) else {
            throw ConfigurationError(.invalidValue, key: reader.key("relations"), "must list 1 to \(Self.maximumRelations) relations")
        }
        for relation in relations where !Self.isRelation(relation) {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("relations"),
                "\(relation.prefix(100)) is not a Digital Asset Links relation such as \(Self.loginCredentials)"
            )
        }
        guard Set(relations).count == relations.count else {
            throw ConfigurationError(.invalidValue, key: reader.key("relations"), "lists a relation twice")
        }
        self.relations = relations
    }

    /// The app's statement in `assetlinks.json`.
    var statement: JSONValue {
        .object([
            "relation": .array(relations.map(JSONValue.string)),
            "target": .object([
                "namespace": .string("android_app"), "package_name": .string(packageName),
                "sha256_cert_fingerprints": .array(certificateFingerprints.map(JSONValue.string)),
            ]),
        ])
    }

    /// An Android application ID: the Java package grammar as Android restricts it for application IDs (two or more
    /// parts separated by dots, each an ASCII letter followed by ASCII letters, digits or `_`), at most 255 characters.
    /// Java keywords are not refused: Android accepts them in application IDs, which are not Java code.
    static func isPackageName(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 255 && parts.count >= 2
            && parts.allSatisfy { part in
                guard let first = part.utf8.first, Self.isLetter(first) else { return false }
                return part.utf8.allSatisfy { Self.isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") }
            }
    }

    /// `kind/detail` in lower-case ASCII letters, digits, `_` and `.` (`delegate_permission/common.handle_all_urls`).
    static func isRelation(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return text.utf8.count <= 128 && parts.count == 2
            && parts.allSatisfy { part in
                !part.isEmpty
                    && part.utf8.allSatisfy {
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                            || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
                    }
            }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
