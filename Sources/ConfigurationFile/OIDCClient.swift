import ConfigurationReading
import CryptoCore
import Foundation
import WebAuthnCore

/// One entry of `oidc.clients`: an app on another site, or a native app, that signs people in through passkeyd as
/// its OpenID provider (`/oauth/authorize`). Validated at start-up: a bad entry stops the server.
public struct OIDCClient: Sendable, Equatable {
    public enum ClientType: String, Sendable {
        /// A native app or a single-page app: no secret, PKCE only; custom-scheme redirect URIs allowed.
        case `public`
        /// A server-side web app: authenticates at the token endpoint with its secret (`client_secret_basic` or
        /// `client_secret_post`).
        case confidential
    }

    /// The scopes passkeyd grants: `openid` (required in every request), `profile` (`preferred_username`, `name`)
    /// and `email` (`email`, `email_verified`).
    public static let supportedScopes = ["openid", "profile", "email"]
    public static let maximumClients = 64
    public static let maximumRedirectURIs = 16

    public let id: String
    public let name: String
    /// Matched exactly, except that an `http` loopback URI matches on any port (RFC 8252 §7.3).
    public let redirectURIs: [String]
    public let type: ClientType
    /// The lowercase hex SHA-256 of the client secret (confidential clients only).
    public let secretSHA256: String?
    /// The scopes this client may ask for (a subset of `supportedScopes`, `openid` included).
    public let scopes: [String]

    public init(id: String, name: String, redirectURIs: [String], type: ClientType, secretSHA256: String? = nil, scopes: [String] = supportedScopes) {
        self.id = id
        self.name = name
        self.redirectURIs = redirectURIs
        self.type = type
        self.secretSHA256 = secretSHA256
        self.scopes = scopes
    }

    /// The `oidc.clients` list.
    package static func list(_ readers: [ConfigurationReader], key: String) throws(ConfigurationError) -> [OIDCClient] {
        guard readers.count <= maximumClients else {
            throw ConfigurationError(.invalidValue, key: key, "must list at most \(maximumClients) clients")
        }
        var clients: [OIDCClient] = []
        for reader in readers {
            let client = try OIDCClient(reader)
            guard !clients.contains(where: { $0.id == client.id }) else {
                throw ConfigurationError(.invalidValue, key: reader.key("id"), "\(client.id) is listed twice")
            }
            clients.append(client)
        }
        return clients
    }

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["id", "name", "redirectURIs", "type", "secretSHA256", "scopes"])
        id = try reader.requiredString("id")
        // RFC 6749 §A.1: client_id is VSCHAR; kept to the unreserved characters so that it needs no escaping anywhere.
        guard id.utf8.count <= 128,
            id.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._~".unicodeScalars.contains($0))
            })
        else {
            throw ConfigurationError(.invalidValue, key: reader.key("id"), "must be 1 to 128 ASCII letters, digits, '-', '.', '_' or '~'")
        }
        name = try reader.requiredString("name")
        guard name.count <= 100, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ConfigurationError(.invalidValue, key: reader.key("name"), "must be 1 to 100 characters without control characters")
        }
        let typeName = try reader.requiredString("type")
        guard let type = ClientType(rawValue: typeName) else {
            throw ConfigurationError(.invalidValue, key: reader.key("type"), "must be \"public\" or \"confidential\"")
        }
        self.type = type
        guard let uris = try reader.strings("redirectURIs"), (1...Self.maximumRedirectURIs).contains(uris.count) else {
            throw ConfigurationError(.missingValue, key: reader.key("redirectURIs"), "must list 1 to \(Self.maximumRedirectURIs) redirect URIs")
        }
        for uri in uris {
            if let problem = Self.problem(redirectURI: uri, type: type) {
                throw ConfigurationError(.invalidValue, key: reader.key("redirectURIs"), "\(uri): \(problem)")
            }
        }
        redirectURIs = uris
        let secret = try reader.string("secretSHA256")
        switch type {
        case .confidential:
            guard let secret, secret.utf8.count == 64, secret.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw ConfigurationError(
                    .missingValue,
                    key: reader.key("secretSHA256"),
                    "a confidential client needs the lowercase hex SHA-256 of its secret (64 characters)"
                )
            }
        case .public:
            guard secret == nil else {
                throw ConfigurationError(.invalidValue, key: reader.key("secretSHA256"), "a public client has no secret (it uses PKCE alone)")
            }
        }
        secretSHA256 = secret
        let scopes = try reader.strings("scopes") ?? Self.supportedScopes
        for scope in scopes where !Self.supportedScopes.contains(scope) {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("scopes"),
                "\(scope) is not a scope passkeyd grants (\(Self.supportedScopes.joined(separator: ", ")))"
            )
        }
        guard scopes.contains("openid") else { throw ConfigurationError(.invalidValue, key: reader.key("scopes"), "must include openid") }
        self.scopes = scopes
    }

    /// Schemes a custom-scheme redirect could abuse in a browser.
    private static let refusedSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "about", "blob", "filesystem", "ftp", "ws", "wss"]

    /// Why `uri` cannot be a redirect URI of a client of `type`, or nil (RFC 6749 §3.1.2, RFC 8252 §7, RFC 9700 §2.1):
    /// absolute, no fragment; `https` with a host for every client; `http` only on a loopback IP literal (RFC 8252 §7.3,
    /// §8.3: `127.0.0.1` or `[::1]`, not `localhost`); a private-use scheme (`com.example.app:/callback`,
    /// `myapp://callback`, RFC 8252 §7.1) only for a public client.
    package static func problem(redirectURI uri: String, type: ClientType) -> String? {
        guard uri.utf8.count <= 2048, !uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            return "must be at most 2048 printable ASCII characters without spaces"
        }
        guard !uri.contains("#") else { return "must not have a fragment (RFC 6749 §3.1.2)" }
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased() else {
            return "is not an absolute URI"
        }
        switch scheme {
        case "https":
            guard let host = components.host, !host.isEmpty else { return "needs a host" }
            return nil
        case "http":
            guard isLoopbackHost(components.host) else {
                return "http is only for loopback redirects on 127.0.0.1 or [::1] (RFC 8252 §7.3); use https"
            }
            return nil
        default:
            guard !refusedSchemes.contains(scheme) else { return "\(scheme): is not a redirect scheme" }
            guard type == .public else { return "a custom scheme is only for public (native) clients (RFC 8252 §7.1)" }
            return nil
        }
    }

    package static func isLoopbackHost(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]" || host == "::1"
    }

    /// The registered redirect URI that `requested` names, or nil: an exact match (RFC 9700 §4.1.3), or for an
    /// `http` loopback URI, the same URI on another port (RFC 8252 §7.3: the app picks its port when it runs). That
    /// port is a TCP port, 1 to 65535, written in decimal without leading zeros (RFC 8252 §8.6: the provider checks
    /// what it can of such redirects; 0 and 99999 name no port an app listens on).
    public func registeredRedirectURI(_ requested: String) -> String? {
        if redirectURIs.contains(requested) { return requested }
        guard requested.hasPrefix("http://"), var asked = URLComponents(string: requested), Self.isLoopbackHost(asked.host) else { return nil }
        guard let port = asked.port, (1...65535).contains(port), Self.portText(of: requested).map(String.init) == String(port) else { return nil }
        asked.port = nil
        for registered in redirectURIs where registered.hasPrefix("http://") {
            guard var candidate = URLComponents(string: registered), Self.isLoopbackHost(candidate.host) else { continue }
            candidate.port = nil
            if candidate.string == asked.string { return registered }
        }
        return nil
    }

    /// The port of an `http://` URI as written: what follows the authority's last ":" (after "]" for an IPv6 literal).
    private static func portText(of uri: String) -> Substring? {
        let authority = uri.dropFirst("http://".count).prefix { $0 != "/" && $0 != "?" }
        let afterHost = authority.lastIndex(of: "]").map { authority[authority.index(after: $0)...] } ?? authority
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        return afterHost[afterHost.index(after: colon)...]
    }

    /// Whether `secret` is this client's, compared in constant time (always a full comparison).
    package func secretMatches(_ secret: String) -> Bool {
        guard let secretSHA256 else { return false }
        return ConstantTime.equals(Hex.encode(DigestAlgorithm.sha256.hash(Array(secret.utf8))), secretSHA256)
    }
}
