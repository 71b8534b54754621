import Foundation

/// Which `iss` values an ID token may carry for one configured provider (OpenID Connect Core §3.1.3.7 step 2: "The
/// Issuer Identifier for the OpenID Provider ... MUST exactly match the value of the iss (issuer) Claim").
public enum IssuerIdentifier: Sendable, Equatable {
    /// One of these exact values. Google issues both `https://accounts.google.com` and `accounts.google.com`.
    case exact([String])
    /// Microsoft Entra's multi-tenant issuer, e.g. `https://login.microsoftonline.com/{tenantid}/v2.0`: the token's
    /// `tid` put in place of `{tenantid}` must give exactly its `iss` (Microsoft identity platform, "Validate the
    /// issuer": "replace {tenantid} with the tenant ID (tid claim) of the token").
    case tenantTemplate(String)

    /// The placeholder Microsoft's multi-tenant discovery documents use in `issuer`.
    public static let tenantPlaceholder = "{tenantid}"
    /// The issuers of Google's ID tokens.
    public static let google = IssuerIdentifier.exact(["https://accounts.google.com", "accounts.google.com"])
    /// The longest issuer identifier accepted in configuration.
    public static let maximumLength = 512

    /// The identifier of a configured generic issuer: an `https://` URL without query or fragment (OpenID Connect
    /// Discovery §2), or `http://` to a loopback host for a local stand-in; at most one `{tenantid}`, in the path,
    /// and no other brace, so that a template is never guessed at.
    public init(configured text: String) throws(OpenIDConnectError) {
        guard text.utf8.count <= Self.maximumLength, let components = URLComponents(string: Self.fillingPlaceholder(text)),
            let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else { throw OpenIDConnectError(.invalidIssuer, "the issuer is not an absolute URL without query or fragment") }
        guard components.scheme == "https" || (components.scheme == "http" && Self.isLoopback(host)) else {
            throw OpenIDConnectError(.invalidIssuer, "the issuer must be an https:// URL (http:// only to a loopback address)")
        }
        let placeholders = text.components(separatedBy: Self.tenantPlaceholder).count - 1
        let withoutPlaceholder = text.replacingOccurrences(of: Self.tenantPlaceholder, with: "")
        guard !withoutPlaceholder.contains("{"), !withoutPlaceholder.contains("}"), placeholders <= 1 else {
            throw OpenIDConnectError(.invalidIssuer, "an issuer template may hold {tenantid} once and no other placeholder")
        }
        guard placeholders == 0 || components.path.contains("tenant-placeholder") else {
            throw OpenIDConnectError(.invalidIssuer, "{tenantid} may only stand in the issuer's path")
        }
        self = placeholders == 0 ? .exact([text]) : .tenantTemplate(text)
    }

    /// The value a discovery document for this provider must have as its `issuer`: the configured text itself.
    public var discoveryIssuer: String {
        switch self {
        case .exact(let values): values[0]
        case .tenantTemplate(let template): template
        }
    }

    /// Checks `issuer` (and, for a template, `tenant`) against this rule; throws `wrongIssuer` or `wrongTenant`.
    func check(issuer: String, tenant: String?) throws(OpenIDConnectError) {
        switch self {
        case .exact(let values):
            // §3.1.3.7 step 2: "MUST exactly match the value of the iss (issuer) Claim".
            guard values.contains(issuer) else { throw OpenIDConnectError(.wrongIssuer, "token iss is not the configured issuer") }
        case .tenantTemplate(let template):
            // Microsoft: a multi-tenant token's tid is a GUID, and the template with that tid is exactly its iss.
            guard let tenant, Self.isTenantID(tenant) else {
                throw OpenIDConnectError(.wrongTenant, "a multi-tenant token has no tid in GUID form")
            }
            guard template.replacingOccurrences(of: Self.tenantPlaceholder, with: tenant) == issuer else {
                throw OpenIDConnectError(.wrongIssuer, "token iss is not the configured issuer with the token's tid")
            }
        }
    }

    /// A tenant ID: a GUID in its 36-character form (8-4-4-4-12 hex digits).
    static func isTenantID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : (byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)
        }
    }

    /// Whether `host` is a loopback address (an IPv4 literal in 127.0.0.0/8, `::1`) or `localhost`. A name that merely
    /// starts with `127.` (`127.example.com`) is not.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && (UInt8($0) != nil) }
    }

    /// The text with the placeholder made URL-safe, so that URLComponents can read a template.
    private static func fillingPlaceholder(_ text: String) -> String {
        text.replacingOccurrences(of: tenantPlaceholder, with: "tenant-placeholder")
    }
}
