import HTTPServer
import WebAuthnCore

/// The associated-domain files, encoded once at start-up from the `associatedDomains` block.
struct WellKnownFiles: Sendable {
    /// Apple's limit for apple-app-site-association (uncompressed).
    static let appleSizeLimit = 128 * 1024

    let appleAppSiteAssociation: [UInt8]?
    let assetLinks: [UInt8]?
    let relatedOrigins: [UInt8]?
    let passkeyEndpoints: [UInt8]?
    /// The responses, made once: the files never change while the server runs.
    private let appleAppSiteAssociationResponse: HTTPResponse
    private let assetLinksResponse: HTTPResponse
    private let relatedOriginsResponse: HTTPResponse
    private let passkeyEndpointsResponse: HTTPResponse

    init(_ domains: AssociatedDomains) throws(ConfigurationError) {
        var association: [String: JSONValue] = [:]
        if !domains.webCredentialApps.isEmpty {
            association["webcredentials"] = .object(["apps": .array(domains.webCredentialApps.map(JSONValue.string))])
        }
        if let links = domains.appLinks { association["applinks"] = links }
        if let clips = domains.appClips { association["appclips"] = clips }
        if association.isEmpty {
            appleAppSiteAssociation = nil
        } else {
            let bytes = JSONBody.encode(association)
            guard bytes.count <= Self.appleSizeLimit else {
                throw ConfigurationError(
                    .invalidValue,
                    key: "associatedDomains",
                    "apple-app-site-association would be \(bytes.count) bytes; Apple reads at most \(Self.appleSizeLimit)"
                )
            }
            appleAppSiteAssociation = bytes
        }
        assetLinks =
            domains.android.isEmpty
            ? nil
            : JSONBody.encode(
                domains.android.map { app in
                    JSONValue.object([
                        "relation": .array([.string("delegate_permission/common.get_login_creds")]),
                        "target": .object([
                            "namespace": .string("android_app"), "package_name": .string(app.packageName),
                            "sha256_cert_fingerprints": .array(app.certificateFingerprints.map(JSONValue.string)),
                        ]),
                    ])
                }
            )
        relatedOrigins =
            domains.relatedOrigins.isEmpty
            ? nil
            : JSONBody.encode(JSONValue.object(["origins": .array(domains.relatedOrigins.map(JSONValue.string))]))
        var endpoints: [String: JSONValue] = [:]
        if let enroll = domains.enrollURL { endpoints["enroll"] = .string(enroll) }
        if let manage = domains.manageURL { endpoints["manage"] = .string(manage) }
        passkeyEndpoints = endpoints.isEmpty ? nil : JSONBody.encode(endpoints)
        appleAppSiteAssociationResponse = Self.response(serving: appleAppSiteAssociation)
        assetLinksResponse = Self.response(serving: assetLinks)
        relatedOriginsResponse = Self.response(serving: relatedOrigins)
        passkeyEndpointsResponse = Self.response(serving: passkeyEndpoints)
    }

    /// The file for a well-known path, or nil when the path is not one of them.
    func response(for path: String) -> HTTPResponse? {
        switch path {
        case "/.well-known/apple-app-site-association", "/apple-app-site-association": appleAppSiteAssociationResponse
        case "/.well-known/assetlinks.json": assetLinksResponse
        case "/.well-known/webauthn": relatedOriginsResponse
        case "/.well-known/passkey-endpoints": passkeyEndpointsResponse
        default: nil
        }
    }

    /// The response for a file, or the JSON 404 when it is not configured.
    private static func response(serving body: [UInt8]?) -> HTTPResponse {
        guard let body else { return ServerError(.notFound).response }
        var response = HTTPResponse.json(status: 200, body)
        // Apple's CDN re-fetches about daily; an hour keeps edits visible soon without hammering the server.
        response.headers.add("Cache-Control", "public, max-age=3600")
        return response
    }
}
