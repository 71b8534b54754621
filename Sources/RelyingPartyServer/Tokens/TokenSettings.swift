import CryptoCore
import Foundation

/// The `tokens` block: the access tokens passkeyd signs for the app's own API, and the rotation of their keys.
public struct TokenSettings: Sendable, Equatable {
    /// `iss` of every token; nil takes `https://<relyingParty.id>` (`ServerConfiguration.tokenIssuer`).
    public var issuer: String?
    /// `aud` of every token; nil takes the relying party ID.
    public var audiences: [String]?
    /// How long an access token is valid (and so the pre-publication window of a new key).
    public var lifetimeSeconds = 900
    public var algorithm = JWSAlgorithm.es256
    /// How often the signing key is replaced.
    public var rotationDays = 30
    /// What `sub` names (`TokenSubject`).
    public var subject = TokenSubject.id

    public static let lifetimeRange = 60...86_400
    public static let maximumAudiences = 16

    public init() {}

    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["issuer", "audiences", "lifetimeSeconds", "algorithm", "rotationDays", "subject"])
        if let issuer = try reader.string("issuer") {
            guard Self.isIssuer(issuer) else {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("issuer"),
                    "must be an https:// URL without query, fragment or trailing slash (http:// only for localhost), such as https://auth.example.com"
                )
            }
            self.issuer = issuer
        }
        if let audiences = try reader.strings("audiences") {
            guard (1...Self.maximumAudiences).contains(audiences.count), Set(audiences).count == audiences.count,
                audiences.allSatisfy({ $0.utf8.count <= 256 })
            else {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("audiences"),
                    "must list 1 to \(Self.maximumAudiences) distinct audiences of at most 256 bytes"
                )
            }
            self.audiences = audiences
        }
        lifetimeSeconds = try reader.integer("lifetimeSeconds", in: Self.lifetimeRange) ?? lifetimeSeconds
        if let name = try reader.string("algorithm") {
            guard let algorithm = JWSAlgorithm(rawValue: name) else {
                throw ConfigurationError(.invalidValue, key: reader.key("algorithm"), "must be ES256, EdDSA or RS256")
            }
            self.algorithm = algorithm
        }
        rotationDays = try reader.integer("rotationDays", in: 1...365) ?? rotationDays
        if let name = try reader.string("subject") {
            guard let subject = TokenSubject(rawValue: name) else {
                throw ConfigurationError(.invalidValue, key: reader.key("subject"), "must be id or externalId")
            }
            self.subject = subject
        }
    }

    static func isIssuer(_ text: String) -> Bool {
        guard text.utf8.count <= 512, !text.hasSuffix("/"), let components = URLComponents(string: text), let host = components.host,
            !host.isEmpty, components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return false }
        return components.scheme == "https" || (components.scheme == "http" && ["localhost", "127.0.0.1"].contains(host))
    }
}
