import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `GET /openapi.json` serves the repository's document, and the document names exactly the route table's endpoints,
/// the well-known files and the server's error codes: a route or a code added without it fails here. (Tests/OpenAPI
/// validates real requests and answers against it.)
struct OpenAPIDocumentTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
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
        let described = Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })
        let routed = Set(RelyingPartyServer.routes.map { "\($0.method) \($0.path)" })
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
}
