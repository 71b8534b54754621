import ConfigurationReading
import Foundation
import OpenIDConnect

/// One member of `identityProviders`: Sign in with Google, or any OpenID Connect issuer, under a name used in paths
/// (`POST /auth/{name}`) and shown with the identities linked through it.
public struct IdentityProviderSettings: Sendable, Equatable {
    /// What kind of provider it is (`type`).
    public enum Kind: String, Sendable, Equatable {
        /// Google: the issuer and discovery document are Google's; `clientIDs` lists the iOS, Android and web clients.
        case google
        /// Any OpenID Connect issuer, from its discovery document.
        case oidc
        /// Firebase Auth's ID tokens (issuer `https://securetoken.google.com/<projectId>`, audience the project ID): a
        /// bridge from an app's Firebase users (`bridge`).
        case firebase
    }

    /// The longest provider name: names are path segments and stored with each identity.
    public static let maximumNameLength = 32
    /// Names a provider may not have: the paths under `/auth/` that are taken.
    package static let reservedNames: Set<String> = ["apple", "recovery"]
    /// The most client IDs one provider lists, and the longest one.
    package static let maximumClientIDs = 16
    package static let maximumClientIDLength = 256
    /// Google's discovery document.
    package static let googleDiscoveryURL = "https://accounts.google.com/.well-known/openid-configuration"

    public var name: String
    public var kind: Kind
    /// The issuer identifier tokens must carry (Google: both of Google's forms).
    public var issuer: IssuerIdentifier
    /// The client IDs a token's `aud` (and `azp`) must be among.
    public var clientIDs: [String]
    /// The confidential client's secret (for the web flow); never logged.
    public var clientSecret: String?
    /// `private_key_jwt` (OpenID Connect Core §9) instead of a secret: the PEM private key file (`privateKey`) whose
    /// signed assertions, under `kid` `keyID`, authenticate the web flow's code exchange.
    public var clientAssertionKeyFile: String?
    public var clientAssertionKeyID: String?
    /// The scopes asked for in the web flow.
    public var scopes: [String]
    /// Whether the provider is authoritative for its users' email addresses: only then does a verified email suggest
    /// a link with another account (true for Google by default; false for a generic issuer, whose users may set any
    /// address).
    public var trustEmail: Bool
    /// Where the discovery document is read (`{issuer}/.well-known/openid-configuration` unless set).
    public var discoveryURL: String
    /// A bridge from the app's previous auth system (`firebase`; `"bridge": true` for an `oidc` issuer such as
    /// Supabase's, Auth0's or Cognito's): its ID tokens come from the app's own sign-in with that system, not from a
    /// request of this server, so `rawNonce` may be absent (each token is still used once); its `sub` is the app's own
    /// user id: a new identity lands in the account whose `externalId` is the `sub`, or a new account with it.
    public var bridge = false

    package init(name: String, _ reader: ConfigurationReader) throws(ConfigurationError) {
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength,
            name.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 })
        else {
            throw ConfigurationError(.invalidValue, key: reader.path, "a provider name is 1 to \(Self.maximumNameLength) of a-z, 0-9 and -")
        }
        guard !Self.reservedNames.contains(name) else {
            throw ConfigurationError(.invalidValue, key: reader.path, "\(name) is taken by the server's own sign-in paths")
        }
        self.name = name
        guard let kind = Kind(rawValue: try reader.requiredString("type")) else {
            throw ConfigurationError(.invalidValue, key: reader.key("type"), "must be google, oidc or firebase")
        }
        self.kind = kind
        switch kind {
        case .google:
            try reader.only(["type", "clientIDs", "clientSecret", "trustEmail", "discoveryURL"])
            issuer = .google
            clientIDs = try Self.clientIDs(reader, "clientIDs", try reader.strings("clientIDs"))
            // The web client's secret: Google's token endpoint wants it for a web application client, PKCE or not.
            clientSecret = try reader.string("clientSecret")
            scopes = ["openid", "email", "profile"]
            trustEmail = try reader.bool("trustEmail") ?? true
            discoveryURL = try reader.outboundURL("discoveryURL") ?? Self.googleDiscoveryURL
        case .firebase:
            try reader.only(["type", "projectId", "trustEmail", "discoveryURL"])
            let project = try reader.requiredString("projectId")
            guard (1...64).contains(project.utf8.count), project.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 })
            else { throw ConfigurationError(.invalidValue, key: reader.key("projectId"), "must be a Firebase project ID (a-z, 0-9, -)") }
            let issuerText = "https://securetoken.google.com/" + project
            do {
                issuer = try IssuerIdentifier(configured: issuerText)
            } catch {
                throw ConfigurationError(.invalidValue, key: reader.key("projectId"), error.reason)
            }
            clientIDs = [project]
            clientSecret = nil
            scopes = ["openid"]
            trustEmail = try reader.bool("trustEmail") ?? false
            discoveryURL = try reader.outboundURL("discoveryURL") ?? issuerText + "/.well-known/openid-configuration"
            bridge = true
        case .oidc:
            try reader.only(["type", "issuer", "clientID", "clientSecret", "privateKey", "keyID", "scopes", "trustEmail", "discoveryURL", "bridge"])
            bridge = try reader.bool("bridge") ?? false
            let issuerText = try reader.requiredString("issuer")
            do {
                issuer = try IssuerIdentifier(configured: issuerText)
            } catch {
                throw ConfigurationError(.invalidValue, key: reader.key("issuer"), error.reason)
            }
            clientIDs = try Self.clientIDs(reader, "clientID", [try reader.requiredString("clientID")])
            clientSecret = try reader.string("clientSecret")
            clientAssertionKeyFile = try reader.string("privateKey")
            clientAssertionKeyID = try reader.string("keyID")
            guard (clientAssertionKeyFile == nil) == (clientAssertionKeyID == nil) else {
                throw ConfigurationError(.missingValue, key: reader.key("keyID"), "privateKey and keyID go together (private_key_jwt)")
            }
            guard clientAssertionKeyFile == nil || clientSecret == nil else {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("privateKey"),
                    "a client authenticates with clientSecret or privateKey, not both"
                )
            }
            scopes = try reader.strings("scopes") ?? ["openid", "email", "profile"]
            guard scopes.contains("openid"), scopes.count <= 16, scopes.allSatisfy({ $0.utf8.count <= 64 && !$0.contains(" ") }) else {
                throw ConfigurationError(.invalidValue, key: reader.key("scopes"), "must include openid, with at most 16 scopes without spaces")
            }
            trustEmail = try reader.bool("trustEmail") ?? false
            if let url = try reader.outboundURL("discoveryURL") {
                discoveryURL = url
            } else if case .tenantTemplate = issuer {
                // A template such as Microsoft's `{tenantid}` is no URL to fetch: the document's address is named.
                throw ConfigurationError(
                    .missingValue,
                    key: reader.key("discoveryURL"),
                    "is required with a {tenantid} issuer (e.g. https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration)"
                )
            } else {
                discoveryURL =
                    issuerText.hasSuffix("/") ? issuerText + ".well-known/openid-configuration" : issuerText + "/.well-known/openid-configuration"
            }
        }
    }

    private static func clientIDs(_ reader: ConfigurationReader, _ name: String, _ values: [String]?) throws(ConfigurationError) -> [String] {
        guard let values, !values.isEmpty else { throw ConfigurationError(.missingValue, key: reader.key(name), "must name at least one client ID") }
        guard values.count <= maximumClientIDs, values.allSatisfy({ $0.utf8.count <= maximumClientIDLength }) else {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key(name),
                "at most \(maximumClientIDs) client IDs of at most \(maximumClientIDLength) bytes"
            )
        }
        return values
    }

    /// The members of `identityProviders`, sorted by name.
    package static func list(_ reader: ConfigurationReader) throws(ConfigurationError) -> [IdentityProviderSettings] {
        var providers: [IdentityProviderSettings] = []
        for name in reader.members.keys.sorted() {
            guard let block = try reader.object(name) else { throw ConfigurationError(.invalidValue, key: reader.key(name), "must be an object") }
            providers.append(try IdentityProviderSettings(name: name, block))
        }
        return providers
    }
}
