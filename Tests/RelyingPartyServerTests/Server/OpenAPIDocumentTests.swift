import Foundation
import HTTPEdge
import HTTPServer
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `GET /openapi.json` serves the repository's document, and the document names exactly the route tables' endpoints
/// (the public one and the admin listener's), the well-known files and the server's error codes: a route or a code
/// added without it fails here. (Tests/Python/openapi validates real requests and answers against it.)
struct OpenAPIDocumentTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/RelyingPartyServer/OpenAPI/openapi.json").path

    private func document() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.documentPath))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theServerServesTheRepositorysDocument() throws {
        let server = try TestServerFactory.make()
        let reply = ServerReply(server.handle(HTTPRequest(method: "GET", path: "/openapi.json")))
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(reply.headers["cache-control"] == "public, max-age=3600")
        #expect(reply.body == Array(try Data(contentsOf: URL(fileURLWithPath: Self.documentPath))))
        #expect(try document()["openapi"] as? String == "3.1.0")
    }

    @Test func everyRouteIsDescribedAndNothingElse() throws {
        let paths = try #require(try document()["paths"] as? [String: [String: Any]])
        // A path item's operations are its HTTP-method keys (`servers` and the like are not).
        let described = Set(
            paths.flatMap { path, item in item.keys.filter(Self.methods.contains).map { "\($0.uppercased()) \(path)" } }
        )
        let routed = Set((RelyingPartyServer.routes + RelyingPartyServer.adminRoutes).map { "\($0.method) \($0.path)" })
        let wellKnown: Set<String> = [
            "GET /.well-known/apple-app-site-association", "GET /apple-app-site-association", "GET /.well-known/assetlinks.json",
            "GET /.well-known/webauthn", "GET /.well-known/passkey-endpoints",
        ]
        #expect(routed.subtracting(described) == [], "routes the document does not describe")
        #expect(described.subtracting(routed).subtracting(wellKnown) == [], "operations that are not routes")
        #expect(wellKnown.isSubset(of: described))
    }

    @Test func theErrorCodesAreTheServers() throws {
        let components = try #require(try document()["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let error = try #require(schemas["Error"] as? [String: Any])
        let properties = try #require(error["properties"] as? [String: Any])
        let code = try #require(properties["error"] as? [String: Any])
        let documented = Set(try #require(code["enum"] as? [String]))
        let server = Set(ServerError.Code.allCases.map(\.rawValue))
        let httpLayer: Set<String> = ["bad_request", "request_too_large", "expectation_failed", "http_error", "server_busy"]
        #expect(documented == server.union(httpLayer))
    }

    /// The operations of a path item.
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The admin listener's operations (the admin table's) name that listener as their server (the path's `servers`) and
    /// take the admin key: only it, but where the route is open on a loopback listener (`/metrics`: no key there, the
    /// admin key elsewhere); no other operation takes the admin key or names another server.
    @Test func theAdminOperationsAreOnTheAdminListenerBehindTheAdminKey() throws {
        let document = try document()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let components = try #require(document["components"] as? [String: Any])
        let schemes = try #require(components["securitySchemes"] as? [String: [String: Any]])
        #expect(schemes["adminKey"]?["type"] as? String == "http" && schemes["adminKey"]?["scheme"] as? String == "bearer")
        let adminRoutes = Dictionary(grouping: RelyingPartyServer.adminRoutes, by: \.path)
        #expect(adminRoutes.values.contains { $0.contains { $0.flags.contains(.openOnLoopback) } })
        for (path, item) in paths {
            let routes = adminRoutes[path]
            let servers = item["servers"] as? [[String: Any]]
            #expect((routes != nil) == (servers != nil), "\(path): only the admin paths name their server")
            if routes != nil {
                #expect(servers?.count == 1, "\(path) names the admin listener as its server")
                #expect((servers?.first?["description"] as? String)?.contains("listen.admin") == true, "\(path)")
            }
            for (method, value) in item where Self.methods.contains(method) {
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                let security = (operation["security"] as? [[String: Any]]) ?? (document["security"] as? [[String: Any]]) ?? []
                let route = routes?.first { $0.method == method.uppercased() }
                #expect(security.contains { $0["adminKey"] != nil } == (route != nil), "\(method.uppercased()) \(path)")
                guard let route else { continue }
                if route.flags.contains(.openOnLoopback) {
                    #expect(security.count == 2 && security.contains { $0.isEmpty }, "\(path): no key on loopback, the admin key elsewhere")
                } else {
                    #expect(security.count == 1, "\(method.uppercased()) \(path): the admin key only")
                    let responses = try #require(operation["responses"] as? [String: Any])
                    #expect(responses["401"] as? [String: String] == ["$ref": "#/components/responses/AdminError401"], "\(method) \(path)")
                }
            }
        }
    }
}
