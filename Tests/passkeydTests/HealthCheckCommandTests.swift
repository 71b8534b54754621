import ConfigurationFile
import CryptoCore
import Foundation
import HTTPServer
import Observability
import RelyingPartyServer
import Testing

@testable import passkeyd

/// `passkeyd healthcheck`: the URL and trust it derives from the configuration, and its exit status against real
/// listeners: 0 only for a 200 of /readyz, 1 for any other answer, no answer, or a certificate it does not trust.
@Suite struct HealthCheckCommandTests {
    /// Answers /readyz with `status`, anything else 404.
    struct Readiness: HTTPHandler {
        let status: Int
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: request.path == "/readyz" ? status : 404)
        }
    }

    /// A temporary data folder with the self-signed pair serve would make for 127.0.0.1.
    final class DataFolder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-healthcheck-\(UUID().uuidString)").path
        var certificate: String { path + "/tls-certificate.pem" }

        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try SelfSignedCertificate.ensure(
                certificateFile: certificate,
                privateKeyFile: path + "/tls-private-key.pem",
                hostNames: ["localhost", "127.0.0.1"],
                now: Date()
            )
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func server(status: Int, tls folder: DataFolder? = nil) throws -> HTTPServer {
        let tls = try folder.map { try TLSServerContext(certificateChainFile: $0.certificate, privateKeyFile: $0.path + "/tls-private-key.pem") }
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                httpsAddress: tls == nil ? nil : "127.0.0.1:0",
                httpAddress: tls == nil ? "127.0.0.1:0" : nil,
                tls: tls,
                threads: 1,
                workers: 1,
                log: .discarding
            ),
            handler: Readiness(status: status)
        )
        server.start()
        return server
    }

    static func configuration(_ json: String) throws -> ServerConfiguration {
        try ServerConfiguration.load(json: Data(json.utf8))
    }

    @Test func theHTTPSListenerOnLoopbackTrustingTheSelfSignedCertificate() throws {
        let target = try HealthCheckCommand.target(for: Self.configuration(#"{"listen": {"https": "0.0.0.0:8443"}, "dataDirectory": "/data"}"#))
        #expect(target == HealthCheckCommand.Target(url: "https://127.0.0.1:8443/readyz", caFile: "/data/tls-certificate.pem"))
        let ipv6 = try HealthCheckCommand.target(for: Self.configuration(#"{"listen": {"https": "[::]:443"}}"#))
        #expect(ipv6.url == "https://[::1]:443/readyz")
    }

    @Test func aConfiguredCertificateIsCheckedAgainstTheSystemRoots() throws {
        let json = #"{"listen": {"https": "127.0.0.1:8443"}, "tls": {"certificate": "/c.pem", "privateKey": "/k.pem"}}"#
        #expect(
            try HealthCheckCommand.target(for: Self.configuration(json))
                == HealthCheckCommand.Target(url: "https://127.0.0.1:8443/readyz", caFile: nil)
        )
    }

    @Test func thePlainListenerWithoutHTTPS() throws {
        let target = try HealthCheckCommand.target(for: Self.configuration(#"{"listen": {"https": null, "http": "127.0.0.1:8080"}}"#))
        #expect(target == HealthCheckCommand.Target(url: "http://127.0.0.1:8080/readyz", caFile: nil))
    }

    @Test func theEnvironmentMovesTheListenerAndTheDataFolder() throws {
        let command = HealthCheckCommand(arguments: [], environment: ["PASSKEYD_LISTEN": "0.0.0.0:9443", "PASSKEYD_DATA": "/volume"])
        #expect(try command.target() == HealthCheckCommand.Target(url: "https://127.0.0.1:9443/readyz", caFile: "/volume/tls-certificate.pem"))
        #expect(HealthCheckCommand(arguments: [], environment: ["PASSKEYD_LISTEN": "nowhere"]).run() == 2)
    }

    @Test func badCommandLinesExitWithTwo() {
        #expect(HealthCheckCommand(arguments: ["--url", "ftp://127.0.0.1/readyz"], environment: [:]).run() == 2)
        #expect(HealthCheckCommand(arguments: ["--url", "http://example.com/readyz"], environment: [:]).run() == 2)
        #expect(HealthCheckCommand(arguments: ["--bogus"], environment: [:]).run() == 2)
    }

    @Test func readyIsZeroAndAnythingElseIsOne() throws {
        let ready = try Self.server(status: 200)
        defer { ready.stop() }
        let busy = try Self.server(status: 503)
        defer { busy.stop() }
        let readyURL = "http://127.0.0.1:\(ready.httpPort ?? 0)/readyz"
        #expect(HealthCheckCommand(arguments: ["--url", readyURL], environment: [:]).run() == 0)
        #expect(HealthCheckCommand(arguments: ["--url", "http://127.0.0.1:\(busy.httpPort ?? 0)/readyz"], environment: [:]).run() == 1)
        #expect(HealthCheckCommand(arguments: ["--url", "http://127.0.0.1:\(ready.httpPort ?? 0)/missing"], environment: [:]).run() == 1)
    }

    @Test func nobodyListeningIsOneWithinTheDeadline() throws {
        // A port that was free a moment ago: the connection is refused.
        let closed = try Self.server(status: 200)
        let port = closed.httpPort ?? 0
        closed.stop()
        let started = Date()
        #expect(HealthCheckCommand(arguments: ["--url", "http://127.0.0.1:\(port)/readyz"], environment: [:]).run() == 1)
        #expect(Date().timeIntervalSince(started) < HealthCheckCommand.deadlineSeconds + 1)
    }

    @Test func theServersOwnCertificateIsTrustedAndNoOtherIs() throws {
        let folder = try DataFolder()
        let server = try Self.server(status: 200, tls: folder)
        defer { server.stop() }
        let port = server.httpsPort ?? 0
        let environment = ["PASSKEYD_LISTEN": "0.0.0.0:\(port)", "PASSKEYD_DATA": folder.path]
        #expect(HealthCheckCommand(arguments: [], environment: environment).run() == 0)
        // With --url the system roots decide, and they do not know the self-signed certificate.
        #expect(HealthCheckCommand(arguments: ["--url", "https://127.0.0.1:\(port)/readyz"], environment: [:]).run() == 1)
        // Another data folder's certificate is not this server's.
        let other = try DataFolder()
        #expect(HealthCheckCommand(arguments: [], environment: ["PASSKEYD_LISTEN": "127.0.0.1:\(port)", "PASSKEYD_DATA": other.path]).run() == 1)
    }
}
