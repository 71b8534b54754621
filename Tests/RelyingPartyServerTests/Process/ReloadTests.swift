import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd serve` reloads on SIGHUP without dropping connections, refuses a configuration that does not load, and
/// stops on SIGTERM after the requests in progress.
@Suite struct ReloadTests {
    /// A certificate and key pair for 127.0.0.1 in `folder`, under `name`.
    private static func certificate(_ folder: TemporaryFolder, _ name: String) throws -> (certificate: String, key: String) {
        let pair = (certificate: folder.path + "/\(name).pem", key: folder.path + "/\(name)-key.pem")
        try SelfSignedCertificate.ensure(certificateFile: pair.certificate, privateKeyFile: pair.key, hostNames: ["127.0.0.1"], now: Date())
        return pair
    }

    private static func tlsMembers(_ files: (certificate: String, key: String)) -> String {
        #""tls": {"certificate": "\#(files.certificate)", "privateKey": "\#(files.key)"}"#
    }

    private static func replace(_ path: String, with source: String) throws {
        let temporary = path + ".new"
        try FileManager.default.copyItem(atPath: source, toPath: temporary)
        _ = rename(temporary, path)
    }

    @Test func aRenewedCertificateIsServedOnNewConnectionsWhileAnOpenOneKeepsWorking() throws {
        let folder = try TemporaryFolder()
        let served = try Self.certificate(folder, "served")
        let renewed = try Self.certificate(folder, "renewed")
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: Self.tlsMembers(served)
        )
        let old = try KeepAliveConnection(port: server.port)
        #expect(try old.get("/healthz").status == 200)
        let oldCertificate = old.certificateSHA256

        // An ACME client renews: the files the configuration names get the new pair, then SIGHUP.
        try Self.replace(served.certificate, with: renewed.certificate)
        try Self.replace(served.key, with: renewed.key)
        let offset = server.logSize
        server.send(signal: SIGHUP)
        #expect(server.waitForLog("reloaded", after: offset), "\(server.log)")

        let fresh = try KeepAliveConnection(port: server.port)
        #expect(try fresh.get("/healthz").status == 200)
        #expect(fresh.certificateSHA256 != oldCertificate, "a new connection still gets the old certificate")
        #expect(!fresh.certificateSHA256.isEmpty)
        // The connection opened before the reload was not dropped, and still talks TLS with the old certificate.
        #expect(try old.get("/healthz").status == 200)
        #expect(try old.get("/healthz").status == 200)
        #expect(old.certificateSHA256 == oldCertificate)
        #expect(server.terminate() == 0)
    }

    @Test func aConfigurationThatDoesNotLoadIsRefusedAndTheOldOneKeepsServing() throws {
        let folder = try TemporaryFolder()
        let served = try Self.certificate(folder, "served")
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: Self.tlsMembers(served) + #", "associatedDomains": {"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"#
        )
        let before = try KeepAliveConnection(port: server.port)
        #expect(try before.get("/healthz").status == 200)
        let original = try String(contentsOfFile: server.configurationPath, encoding: .utf8)

        // Not JSON at all.
        var offset = server.logSize
        try Data("{\"relyingParty\": ".utf8).write(to: URL(fileURLWithPath: server.configurationPath))
        server.send(signal: SIGHUP)
        #expect(server.waitForLog("reload refused", after: offset), "\(server.log)")
        // A certificate that does not match its key: the whole reload is refused, the old certificate stays.
        let other = try Self.certificate(folder, "other")
        try Data(original.replacingOccurrences(of: served.key, with: other.key).utf8).write(to: URL(fileURLWithPath: server.configurationPath))
        offset = server.logSize
        server.send(signal: SIGHUP)
        #expect(server.waitForLog("reload refused", after: offset), "\(server.log)")

        let after = try KeepAliveConnection(port: server.port)
        #expect(try after.get("/healthz").status == 200)
        #expect(after.certificateSHA256 == before.certificateSHA256)
        #expect(try after.get("/.well-known/apple-app-site-association").text.contains("ABCDE12345.com.example.app"))
        #expect(try before.get("/healthz").status == 200)
        #expect(server.process.isRunning)
        #expect(server.terminate() == 0)
    }

    @Test func associatedDomainFilesAreReloadedAndRestartOnlySettingsAreNamed() throws {
        let folder = try TemporaryFolder()
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: #""associatedDomains": {"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"#
        )
        let connection = try KeepAliveConnection(port: server.port)
        #expect(try connection.get("/.well-known/assetlinks.json").status == 404)
        let original = try String(contentsOfFile: server.configurationPath, encoding: .utf8)
        let android =
            #""android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(Array(repeating: "AB", count: 32).joined(separator: ":"))"]}]"#
        let changed =
            original
            .replacingOccurrences(of: "ABCDE12345.com.example.app\"]}", with: "ZYXWV98765.com.example.app\"]}, \(android)")
            .replacingOccurrences(of: "\"threads\": 2", with: "\"threads\": 1")
        try Data(changed.utf8).write(to: URL(fileURLWithPath: server.configurationPath))
        let offset = server.logSize
        server.send(signal: SIGHUP)
        #expect(server.waitForLog("reloaded", after: offset), "\(server.log)")
        #expect(server.waitForLog("need a restart to take effect: threads", after: offset), "\(server.log)")
        // Standard error is a file, not a terminal: every line is a JSON object with the fields of the log format.
        let lines = server.log.split(separator: "\n")
        #expect(lines.count >= 5)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(["time", "level", "event", "message", "node"].allSatisfy { object[$0] is String }, "\(line)")
            #expect(ISO8601DateFormatter().date(from: String((object["time"] as? String ?? "").prefix(19)) + "Z") != nil, "\(line)")
        }
        #expect(lines.contains { $0.contains(#""level":"warning","event":"reload""#) })

        let association = try connection.get("/.well-known/apple-app-site-association").text
        #expect(association.contains("ZYXWV98765.com.example.app") && !association.contains("ABCDE12345"))
        #expect(try connection.get("/.well-known/assetlinks.json").text.contains("com.example.app"))
        #expect(server.terminate() == 0)
    }

    @Test func sigtermStopsAcceptingAndFinishesTheRequestInProgressThenExitsZero() throws {
        let folder = try TemporaryFolder()
        let server = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: folder.path + "/passkeyd.json")
        let idle = try KeepAliveConnection(port: server.port)
        #expect(try idle.get("/healthz").status == 200)
        let inProgress = try KeepAliveConnection(port: server.port)
        // Half a request has arrived when the stop begins.
        try inProgress.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        usleep(200_000)
        let offset = server.logSize
        server.send(signal: SIGTERM)
        #expect(server.waitForLog("stopping", after: offset), "\(server.log)")
        usleep(300_000)
        #expect(server.process.isRunning, "the server did not wait for the request in progress")
        try inProgress.write("\r\n")
        #expect(try inProgress.readReply().status == 200)
        // The idle connection was closed, and the process ends with status 0 once the answer is out.
        #expect(throws: (any Error).self) { try idle.get("/healthz") }
        let deadline = Date().addingTimeInterval(10)
        while server.process.isRunning, Date() < deadline { usleep(50_000) }
        #expect(!server.process.isRunning)
        #expect(server.process.terminationStatus == 0)
        #expect(server.log.contains("stopped"))
    }
}

/// `RelyingPartyServer.reload` itself: the trust material and the metadata BLOB follow the new configuration, and a
/// configuration whose material does not verify changes nothing.
struct InProcessReloadTests {
    @Test func trustMaterialIsReloadedAndABLOBThatDoesNotVerifyIsRefused() throws {
        let folder = try TemporaryFolder()
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let signer = try MetadataBLOBSigner.make(at: now)
        try AttestationConfigurationTests.pem(signer.root).write(toFile: folder.path + "/root.pem", atomically: true, encoding: .utf8)
        func configuration(blob: String, policy: String) throws -> ServerConfiguration {
            try blob.write(toFile: folder.path + "/blob-\(policy).jwt", atomically: true, encoding: .utf8)
            return try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "dataDirectory": "\#(folder.path)", "#
                    + #""attestation": {"policy": "\#(policy)", "metadata": {"file": "\#(folder.path)/blob-\#(policy).jwt", "root": "\#(folder.path)/root.pem", "url": null}}}"#
            )
        }
        let first = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-01", entries: [], number: 42))
        let server = try TestServerFactory.make(configuration: try configuration(blob: first, policy: "none"), clock: ManualClock(now))
        let second = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-20", entries: [], number: 45))
        #expect(try server.reload(try configuration(blob: second, policy: "verified")) == [])
        #expect(server.settings.withLock { ($0.metadata?.number, $0.attestation.policy) } == (45, .verified))

        let stranger = try MetadataBLOBSigner.make(at: now)
        let foreign = try stranger.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-30", entries: [], number: 50))
        #expect(throws: ConfigurationError.self) { try server.reload(try configuration(blob: foreign, policy: "none")) }
        #expect(server.settings.withLock { ($0.metadata?.number, $0.attestation.policy) } == (45, .verified))
    }
}

/// Settings of the blocks a running server sets up once (access tokens, introspection, CORS, the OpenID provider, the
/// log, metrics) are reported as needing a restart, and the reload takes none of them.
struct RestartReportTests {
    @Test func tokensBackendsCORSOpenIDLogAndMetricsNeedARestart() throws {
        let base = #"{"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null"#
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(base + "}"))
        let changed = try TestServerFactory.configuration(
            base + #", "tokens": {"lifetimeSeconds": 600}, \#(TokenFixture.backends), "cors": {"allowedOrigins": ["https://app.example"]}, "#
                + #""oidc": {"refreshTokenLifetimeSeconds": 7200}, "log": {"level": "debug"}, "node": {"name": "web-2"}, "#
                + #""metrics": {"enabled": false}, "limits": {"maximumPasskeysPerAccount": 5}}"#
        )
        #expect(
            try server.reload(changed) == ["limits", "tokens", "backends", "cors", "oidc", "log", "node", "metrics"]
        )
        #expect(server.tokens.settings.lifetimeSeconds == 900)
        #expect(server.metricsResponse().status == 200)
    }
}

/// A reload replaces the admin keys: the old key is refused from then on, the new one accepted.
struct AdminKeyReloadTests {
    @Test func theAdminKeysFollowAReload() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(AdminAPITests.configuration))
        let admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        #expect(try admin.send("GET", "/admin/users", headers: AdminAPITests.key).status == 200)
        let newKey = "rotated-admin-key-9876543210"
        let rotated = AdminAPITests.configuration.replacingOccurrences(
            of: Hex.encode(DigestAlgorithm.sha256.hash(Array(AdminAPITests.adminKey.utf8))),
            with: Hex.encode(DigestAlgorithm.sha256.hash(Array(newKey.utf8)))
        )
        #expect(try server.reload(try TestServerFactory.configuration(rotated)) == [])
        #expect(try admin.send("GET", "/admin/users", headers: AdminAPITests.key).errorCode == "admin_unauthorized")
        #expect(try admin.send("GET", "/admin/users", headers: [("Authorization", "Bearer \(newKey)")]).status == 200)
    }
}
