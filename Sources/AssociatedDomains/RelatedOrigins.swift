import ConfigurationReading
import Foundation
import JSON

/// `associatedDomains.relatedOrigins`: the origins on other domains that may run ceremonies for this relying party
/// (WebAuthn L3 §5.11, Related Origin Requests). Listed once, they are both published in `/.well-known/webauthn` and
/// accepted in ceremonies. The same rules read a domain's `webauthn` file in `passkeyd check-domain`.
struct RelatedOrigins: Sendable, Equatable {
    /// §5.11: clients need to support only five registrable-domain labels; origins past the fifth may be ignored.
    static let supportedLabels = 5
    static let maximumOrigins = 100

    let origins: [String]

    /// Refuses anything but distinct `https` origins (lower-case host name, no default port, no path, query or
    /// fragment); `key` names the list.
    init(_ origins: [String], key: String) throws(ConfigurationError) {
        guard (1...Self.maximumOrigins).contains(origins.count) else {
            throw ConfigurationError(.invalidValue, key: key, "must list 1 to \(Self.maximumOrigins) origins")
        }
        for origin in origins {
            if let problem = Self.problem(with: origin) {
                throw ConfigurationError(.invalidValue, key: key, "\(origin.prefix(100)) \(problem)")
            }
        }
        guard Set(origins).count == origins.count else { throw ConfigurationError(.invalidValue, key: key, "lists an origin twice") }
        self.origins = origins
    }

    /// `{"origins": [...]}`, as `/.well-known/webauthn` holds them.
    var json: JSONValue { .object(["origins": .array(origins.map(JSONValue.string))]) }

    /// The distinct registrable-domain labels, in order of first appearance.
    var labels: [String] {
        var seen: [String] = []
        for origin in origins {
            guard let host = URLComponents(string: origin)?.host else { continue }
            let label = Self.label(ofHost: host)
            if !seen.contains(label) { seen.append(label) }
        }
        return seen
    }

    /// A warning when clients may ignore some origins (more labels than §5.11 requires clients to support), else nil.
    var labelWarning: String? {
        let labels = self.labels
        guard labels.count > Self.supportedLabels else { return nil }
        return "\(labels.count) registrable-domain labels (\(labels.joined(separator: ", "))); WebAuthn L3 §5.11 requires clients to support only "
            + "\(Self.supportedLabels), so origins of the later labels may be refused"
    }

    /// Why `origin` is not a related origin, or nil when it is one.
    static func problem(with origin: String) -> String? {
        guard let components = URLComponents(string: origin), let host = components.host, !host.isEmpty else { return "is not an origin" }
        guard components.scheme == "https" else { return "is not an https:// origin" }
        guard components.user == nil, components.password == nil else { return "carries credentials" }
        guard components.path.isEmpty, components.query == nil, components.fragment == nil else {
            return "has a path, query or fragment (an origin is scheme://host[:port], without even a trailing /)"
        }
        guard host == host.lowercased(), DomainName.isValid(host), host.contains(where: \.isLetter) else {
            return "does not name a host in lower case"
        }
        guard components.port != 443 else { return "names the default port 443, which an origin omits" }
        return nil
    }

    /// The registrable-domain label of a host: the label left of its public suffix (`example` for `example.com`,
    /// `shop.example.co.uk` and `example.de`). Without the Public Suffix List, the public suffix is approximated as the
    /// last label, or the last two when the last is a two-letter country code and the one before it is a common
    /// second-level registry label (`co.uk`, `com.au`, `ne.jp`). Suffixes of private registries (`github.io`) and
    /// deeper ones (`k12.ca.us`) are not known, so the count can be off by their labels: it only decides a warning.
    static func label(ofHost host: String) -> String {
        let labels = host.lowercased().split(separator: ".").map(String.init)
        guard labels.count >= 2 else { return labels.first ?? host }
        let last = labels[labels.count - 1]
        let secondLevel = labels[labels.count - 2]
        if labels.count >= 3, last.count == 2, Self.secondLevelRegistryLabels.contains(secondLevel) {
            return labels[labels.count - 3]
        }
        return secondLevel
    }

    /// Second-level labels that country-code registries sell names under.
    static let secondLevelRegistryLabels: Set<String> = [
        "ac", "co", "com", "edu", "gob", "gov", "go", "gouv", "govt", "ltd", "mil", "ne", "net", "nom", "or", "org", "plc", "sch",
    ]
}
