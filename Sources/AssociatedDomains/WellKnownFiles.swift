import ConfigurationReading
import Foundation
import JSON

/// The associated-domain files, encoded once at start-up from the `associatedDomains` block: status 200,
/// `application/json`, never a redirect, `Cache-Control`, a strong `ETag` and `Last-Modified` with 304 answers, and
/// Apple's size limit checked before the server starts. A file that is not configured is a JSON 404 whose `key` names
/// the configuration key that publishes it (the server answers it: `WellKnownFiles+Response.swift`).
public struct WellKnownFiles: Sendable {
    /// Apple's limit for apple-app-site-association (uncompressed).
    static let appleSizeLimit = 128 * 1024

    /// Each path and what it serves: a file, or the key that would publish it.
    private let files: [String: Result<WellKnownFile, NotConfigured>]

    /// The key of a file that is not configured.
    public struct NotConfigured: Error {
        public let key: String
    }

    static let appleAppSiteAssociationPaths = ["/.well-known/apple-app-site-association", "/apple-app-site-association"]
    static let assetLinksPath = "/.well-known/assetlinks.json"
    static let relatedOriginsPath = "/.well-known/webauthn"
    static let passkeyEndpointsPath = "/.well-known/passkey-endpoints"
    /// Every path served here.
    public static let paths: Set<String> = Set(appleAppSiteAssociationPaths + [assetLinksPath, relatedOriginsPath, passkeyEndpointsPath])

    public init(_ domains: AssociatedDomains, loadedAt: Date) throws(ConfigurationError) {
        let second = Int(loadedAt.timeIntervalSince1970)
        func file(_ value: JSONValue?, key: String) -> Result<WellKnownFile, NotConfigured> {
            guard let value else { return .failure(NotConfigured(key: key)) }
            return .success(WellKnownFile(JSONEncoding.encode(value), loadedAt: second))
        }
        let association = file(domains.appleAppSiteAssociation?.json, key: "associatedDomains.webcredentials")
        if case .success(let published) = association, published.body.count > Self.appleSizeLimit {
            throw ConfigurationError(
                .invalidValue,
                key: "associatedDomains",
                "apple-app-site-association would be \(published.body.count) bytes; Apple reads at most \(Self.appleSizeLimit)"
            )
        }
        var files: [String: Result<WellKnownFile, NotConfigured>] = [:]
        for path in Self.appleAppSiteAssociationPaths { files[path] = association }
        files[Self.assetLinksPath] = file(domains.android.isEmpty ? nil : .array(domains.android.map(\.statement)), key: "associatedDomains.android")
        files[Self.relatedOriginsPath] = file(domains.relatedOrigins?.json, key: "associatedDomains.relatedOrigins")
        files[Self.passkeyEndpointsPath] = file(domains.passkeyEndpoints?.json, key: "associatedDomains.passkeyEndpoints")
        self.files = files
    }

    /// What a well-known path serves (the file, or the key that would publish it), or nil for any other path.
    public func file(at path: String) -> Result<WellKnownFile, NotConfigured>? { files[path] }
}
