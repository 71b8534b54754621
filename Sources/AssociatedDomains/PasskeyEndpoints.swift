import ConfigurationReading
import Foundation
import JSON

/// `associatedDomains.passkeyEndpoints`: the W3C draft "A Well-Known URL for Relying Party Passkey Endpoints",
/// `/.well-known/passkey-endpoints`. Every member is optional and an absolute `https` URL: `enroll` (where a
/// signed-in user creates a passkey), `manage` (where they manage them), `prfUsageDetails` (a page on how the site
/// uses the PRF extension). `{}` publishes the empty object (passkeys supported, no links). The same rules read a
/// domain's file in `passkeyd check-domain`.
struct PasskeyEndpoints: Sendable, Equatable {
    static let members = ["enroll", "manage", "prfUsageDetails"]

    /// Member name → URL, only the members given.
    let urls: [String: String]

    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(Set(Self.members))
        var urls: [String: String] = [:]
        for name in Self.members {
            guard let url = try reader.string(name) else { continue }
            if let problem = Self.problem(with: url) {
                throw ConfigurationError(.invalidValue, key: reader.key(name), "\(url.prefix(100)) \(problem)")
            }
            urls[name] = url
        }
        self.urls = urls
    }

    var json: JSONValue { .object(urls.mapValues(JSONValue.string)) }

    /// Why `url` is not an absolute `https` URL a password manager may open, or nil.
    static func problem(with url: String) -> String? {
        guard url.utf8.count <= 2_048 else { return "is longer than 2048 bytes" }
        guard let components = URLComponents(string: url), let scheme = components.scheme else { return "is not an absolute URL" }
        guard scheme == "https" else { return "is not an https:// URL" }
        guard let host = components.host, !host.isEmpty else { return "has no host" }
        guard components.user == nil, components.password == nil else { return "carries credentials" }
        return nil
    }
}
