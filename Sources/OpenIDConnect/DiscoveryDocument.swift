import Foundation
import JSON

/// An OpenID provider's configuration document (OpenID Connect Discovery 1.0 §3, served at
/// `{issuer}/.well-known/openid-configuration`), reduced to the members passkeyd uses. Pure: the caller fetches it.
public struct DiscoveryDocument: Sendable, Equatable {
    /// The largest document accepted; Google's and Microsoft's are about two kilobytes.
    public static let maximumDocumentLength = 65_536
    /// The longest endpoint URL accepted.
    public static let maximumURLLength = 2_048

    public let issuer: String
    public let jwksURL: URL
    /// Absent for an issuer without a code flow (Firebase Auth's `securetoken`, which only issues ID tokens to its own
    /// SDKs): such a provider signs in natively only.
    public let authorizationEndpoint: URL?
    public let tokenEndpoint: URL?

    /// Reads `json` (strict JSON: one object, no duplicate members) for the provider whose configured issuer is
    /// `expectedIssuer`. `issuer` and `jwks_uri` are required; `authorization_endpoint` and `token_endpoint` too unless
    /// both are absent (Discovery §3: "REQUIRED unless only the Implicit Flow is used"; Firebase's issuer has neither);
    /// each endpoint is an absolute `https://` URL (`http://` only to a loopback host, for local stand-ins).
    public init(json: [UInt8], expectedIssuer: IssuerIdentifier) throws(OpenIDConnectError) {
        // Bound the work done on a document before it is parsed.
        guard json.count <= Self.maximumDocumentLength else {
            throw OpenIDConnectError(.discoveryMalformed, "the discovery document is longer than \(Self.maximumDocumentLength) bytes")
        }
        // Discovery §4.2: "The response is a set of Claims about the OpenID Provider's configuration ... a JSON object".
        guard let object = StrictJSONParser.strictValue(json)?.objectValue else {
            throw OpenIDConnectError(.discoveryMalformed, "the discovery document is not a strict JSON object")
        }
        guard let issuer = object["issuer"]?.stringValue else {
            throw OpenIDConnectError(.discoveryMalformed, "the discovery document has no string issuer")
        }
        // Discovery §4.3: "The issuer value returned MUST be identical to the Issuer URL that was used as the prefix
        // to /.well-known/openid-configuration to retrieve the configuration information."
        guard issuer == expectedIssuer.discoveryIssuer else {
            throw OpenIDConnectError(.discoveryIssuerMismatch, "the discovery document's issuer is not the configured issuer")
        }
        self.issuer = issuer
        jwksURL = try Self.endpoint(object, "jwks_uri")
        if object["authorization_endpoint"] == nil, object["token_endpoint"] == nil {
            (authorizationEndpoint, tokenEndpoint) = (nil, nil)
        } else {
            authorizationEndpoint = try Self.endpoint(object, "authorization_endpoint")
            tokenEndpoint = try Self.endpoint(object, "token_endpoint")
        }
    }

    /// Discovery §3: each endpoint "MUST use the https scheme"; http is let through to a loopback host only.
    private static func endpoint(_ object: [String: JSONValue], _ name: String) throws(OpenIDConnectError) -> URL {
        guard let text = object[name]?.stringValue, text.utf8.count <= maximumURLLength, let components = URLComponents(string: text),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil, components.fragment == nil,
            components.scheme == "https" || (components.scheme == "http" && IssuerIdentifier.isLoopback(host)), let url = components.url
        else {
            throw OpenIDConnectError(.discoveryMalformed, "the discovery document's \(name) is not an https:// URL")
        }
        return url
    }
}
