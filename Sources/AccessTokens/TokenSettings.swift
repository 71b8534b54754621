import ConfigurationReading
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
    /// The top-level members of an account's metadata (`UserMetadata`) copied into its access tokens as claims of the
    /// same name, when the account's metadata has them; never a claim passkeyd writes or a registered one.
    public var metadataClaims: [String] = []

    public static let lifetimeRange = 60...86_400
    public static let maximumAudiences = 16
    public static let maximumMetadataClaims = 16
    /// The claims `metadataClaims` may never name: what the minter writes, and the other claims of RFC 7519, RFC 9068,
    /// RFC 8693, RFC 7800, OpenID Connect Core and RFC 9449 a verifier may read as passkeyd's.
    static let reservedClaims: Set<String> = [
        "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "client_id", "sid", "auth_time", "amr", "username", "external_id", "email",
        "email_verified", "scope", "acr", "azp", "nonce", "at_hash", "c_hash", "cnf", "act", "may_act", "typ", "token_use",
        "roles", "groups", "entitlements",
    ]

    public init() {}

    public init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["issuer", "audiences", "lifetimeSeconds", "algorithm", "rotationDays", "subject", "metadataClaims"])
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
        if let names = try reader.strings("metadataClaims") {
            guard names.count <= Self.maximumMetadataClaims, Set(names).count == names.count,
                names.allSatisfy({ (1...64).contains($0.utf8.count) && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) } })
            else {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("metadataClaims"),
                    "must list at most \(Self.maximumMetadataClaims) distinct names of 1 to 64 printable ASCII characters"
                )
            }
            if let reserved = names.first(where: Self.reservedClaims.contains) {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("metadataClaims"),
                    "\(reserved) is a registered claim: metadata never overrides one"
                )
            }
            metadataClaims = names
        }
    }

    static func isIssuer(_ text: String) -> Bool {
        guard text.utf8.count <= 512, !text.hasSuffix("/"), let components = URLComponents(string: text), let host = components.host,
            !host.isEmpty, components.query == nil, components.fragment == nil, components.user == nil, components.password == nil
        else { return false }
        return components.scheme == "https" || (components.scheme == "http" && ["localhost", "127.0.0.1"].contains(host))
    }
}
