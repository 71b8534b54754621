import AssociatedDomains
import ConfigurationReading
import Foundation

extension ServerConfiguration {
    /// The `relyingParty` block: `id`, `name`, `origins` (by default `https://` + the ID when only the ID is given).
    package mutating func parseRelyingParty(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["id", "name", "origins"])
        if let id = try block.string("id") {
            guard DomainName.isValid(id) else {
                throw ConfigurationError(.invalidValue, key: "relyingParty.id", "must be a domain name such as example.com")
            }
            relyingPartyID = id
        }
        relyingPartyName = try block.string("name") ?? relyingPartyName
        if let origins = try block.strings("origins") {
            guard !origins.isEmpty else { throw ConfigurationError(.invalidValue, key: "relyingParty.origins", "must list at least one origin") }
            for origin in origins where !Self.isOrigin(origin) {
                throw ConfigurationError(
                    .invalidValue,
                    key: "relyingParty.origins",
                    "\(origin.prefix(120)) is not an https:// origin (http:// only for localhost) or an android:apk-key-hash: origin "
                        + "(the unpadded base64url of a 32-byte SHA-256 fingerprint)"
                )
            }
            self.origins = origins
        } else if block.has("id") {
            origins = ["https://" + relyingPartyID]
        }
    }

    package static func isOrigin(_ text: String) -> Bool {
        if text.hasPrefix(CertificateFingerprint.originPrefix) { return CertificateFingerprint(origin: text) != nil }
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
            components.path.isEmpty, components.query == nil, components.fragment == nil
        else { return false }
        return components.scheme == "https" || (components.scheme == "http" && (host == "localhost" || host.hasSuffix(".localhost")))
    }
}
