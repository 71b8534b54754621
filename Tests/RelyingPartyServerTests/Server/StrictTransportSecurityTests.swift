import Foundation
import Testing

/// Issue 15: `passkeyd serve` sends `Strict-Transport-Security` on its HTTPS answers as `tls.strictTransportSecurity`
/// says (a year, without `includeSubDomains`, by default), and none when it is null.
@Suite(.serialized) struct StrictTransportSecurityTests {
    static func header(_ extraMembers: String?) throws -> [String] {
        let folder = try TemporaryFolder()
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: extraMembers
        )
        defer { server.stopWithSIGKILL() }
        let health = try CurlTransport(port: server.port).send("GET", "/healthz", body: nil, headers: [])
        let missing = try CurlTransport(port: server.port).send("GET", "/missing", body: nil, headers: [])
        #expect(health.status == 200)
        #expect(missing.status == 404)
        #expect(health.headers.values("Strict-Transport-Security") == missing.headers.values("Strict-Transport-Security"))
        return health.headers.values("Strict-Transport-Security")
    }

    @Test func asConfigured() throws {
        #expect(try Self.header(nil) == ["max-age=31536000"])
        let configured = #""tls": {"strictTransportSecurity": {"maxAgeSeconds": 600, "includeSubDomains": true}}"#
        #expect(try Self.header(configured) == ["max-age=600; includeSubDomains"])
        #expect(try Self.header(#""tls": {"strictTransportSecurity": null}"#) == [])
    }
}
