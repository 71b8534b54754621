import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import Observability
import OutboundHTTP
import Storage
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// `attestation.metadata.url`: a fresher BLOB fetched in the background is verified exactly as at start-up, swapped
/// in, and kept in the data folder for the next start; an invalid one, an error status and no answer change nothing
/// and are logged and counted.
@Suite struct MetadataRefreshTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28

    /// A data folder, a configured BLOB (no. 42) with its root, a stand-in and a server fetching from it.
    struct Fixture {
        let folder: TemporaryFolder
        let signer: MetadataBLOBSigner
        let standIn: MetadataStandIn
        let configuration: ServerConfiguration
        let client: HTTPClient

        init(configuredBLOB: String? = nil, url: String? = nil) throws {
            folder = try TemporaryFolder()
            signer = try MetadataBLOBSigner.make(at: MetadataRefreshTests.now)
            standIn = try MetadataStandIn()
            let blob = try configuredBLOB ?? signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-01", entries: [], number: 42))
            try blob.write(toFile: folder.path + "/blob.jwt", atomically: true, encoding: .utf8)
            try AttestationConfigurationTests.pem(signer.root).write(toFile: folder.path + "/root.pem", atomically: true, encoding: .utf8)
            configuration = try Self.configuration(folder, url: "\"\(url ?? standIn.url)\"")
            try FileManager.default.createDirectory(atPath: folder.path + "/data", withIntermediateDirectories: true)
            client = try HTTPClient()
        }

        /// The configuration of the fixture's files with `url` (JSON: a string or null) and `refreshHours`.
        static func configuration(_ folder: TemporaryFolder, url: String, refreshHours: Int = 24) throws -> ServerConfiguration {
            try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "dataDirectory": "\#(folder.path)/data", "#
                    + #""attestation": {"metadata": {"file": "\#(folder.path)/blob.jwt", "root": "\#(folder.path)/root.pem", "#
                    + #""url": \#(url), "refreshHours": \#(refreshHours), "staleGraceDays": 7}}}"#
            )
        }

        func server(log: Logger = .discarding) throws -> RelyingPartyServer {
            try TestServerFactory.make(configuration: configuration, clock: ManualClock(MetadataRefreshTests.now), log: log)
        }

        func blob(number: Int, nextUpdate: String = "2026-07-15") throws -> String {
            try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: nextUpdate, entries: [], number: number))
        }

        var cached: String? { try? String(contentsOfFile: folder.path + "/data/fido-metadata.jwt", encoding: .utf8) }
    }

    static func number(_ server: RelyingPartyServer) -> Int? {
        server.settings.withLock { $0.metadata?.number }
    }

    @Test func aNewerBLOBIsVerifiedSwappedInAndKeptForTheNextStart() throws {
        let fixture = try Fixture()
        defer { fixture.client.shutDown() }
        let server = try fixture.server()
        #expect(Self.number(server) == 42)
        let newer = try fixture.blob(number: 43)
        fixture.standIn.serve(newer)
        #expect(server.refreshMetadata(client: fixture.client) == .refreshed(number: 43))
        #expect(Self.number(server) == 43)
        #expect(fixture.cached == newer)
        // The same BLOB again, or an older one, changes nothing.
        #expect(server.refreshMetadata(client: fixture.client) == .unchanged(number: 43))
        fixture.standIn.serve(try fixture.blob(number: 41))
        #expect(server.refreshMetadata(client: fixture.client) == .unchanged(number: 43))
        #expect(fixture.cached == newer)
        // The next start takes the kept BLOB over the older configured file.
        #expect(Self.number(try fixture.server()) == 43)
        let families = try MetricsTests.scrape(server)
        let refreshes = try #require(families["passkeyd_metadata_refreshes"])
        #expect(refreshes.value("passkeyd_metadata_refreshes_total", ["outcome": "refreshed"]) == 1)
        #expect(refreshes.value("passkeyd_metadata_refreshes_total", ["outcome": "unchanged"]) == 2)
        #expect(families["passkeyd_metadata_blob_number"]?.value("passkeyd_metadata_blob_number") == 43)
        let nextUpdate = try #require(ISO8601Time.parseDateOrTime("2026-07-15"))
        #expect(
            families["passkeyd_metadata_next_update_timestamp_seconds"]?.value("passkeyd_metadata_next_update_timestamp_seconds")
                == nextUpdate.timeIntervalSince1970
        )
    }

    @Test func anInvalidBLOBAnErrorAndNoAnswerChangeNothingAndAreLoggedAndCounted() throws {
        let fixture = try Fixture()
        defer { fixture.client.shutDown() }
        let lines = AppleFixture.LogLines()
        let server = try fixture.server(log: .messages { lines.append($0) })
        // Signed under another root.
        let stranger = try MetadataBLOBSigner.make(at: Self.now)
        fixture.standIn.serve(try stranger.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-15", entries: [], number: 99)))
        #expect(server.refreshMetadata(client: fixture.client) == .failed(WebAuthnError.Code.metadataUntrustedChain.rawValue))
        // Past its nextUpdate and grace.
        fixture.standIn.serve(try fixture.blob(number: 50, nextUpdate: "2026-05-01"))
        guard case .failed = server.refreshMetadata(client: fixture.client) else {
            Issue.record("a stale BLOB was taken")
            return
        }
        // Not a JWS at all, then an error status.
        fixture.standIn.serve("<html>maintenance</html>")
        guard case .failed = server.refreshMetadata(client: fixture.client) else {
            Issue.record("a page that is not a BLOB was taken")
            return
        }
        fixture.standIn.answer(503)
        #expect(server.refreshMetadata(client: fixture.client) == .failed("status 503"))
        #expect(Self.number(server) == 42)
        #expect(fixture.cached == nil)
        #expect(fixture.standIn.requestCount == 4)
        #expect(lines.all.filter { $0.hasPrefix("metadata: refresh failed") }.count == 4)
        #expect(
            try MetricsTests.scrape(server)["passkeyd_metadata_refreshes"]?.value("passkeyd_metadata_refreshes_total", ["outcome": "failed"]) == 4
        )
        #expect(ReadinessTests.get(server, "/readyz").status == 200, "the held BLOB is within its grace")
    }

    @Test func nothingListeningIsAFailureToo() throws {
        let fixture = try Fixture(url: "http://127.0.0.1:\(try LoopbackPort.free())/blob.jwt")
        defer { fixture.client.shutDown() }
        let server = try fixture.server()
        #expect(server.refreshMetadata(client: fixture.client) == .failed(HTTPClientError.Code.connectFailed.rawValue))
        #expect(Self.number(server) == 42)
    }

    /// A `SIGHUP` that changes `attestation.metadata.url` or `refreshHours` replaces the background fetch: a URL
    /// configured by the reload is fetched at once (not after the old interval), and `"url": null` stops fetching.
    @Test func theBackgroundFetchFollowsAReloadOfItsURLAndInterval() throws {
        let fixture = try Fixture()
        defer { fixture.client.shutDown() }
        let server = try TestServerFactory.make(
            configuration: try Fixture.configuration(fixture.folder, url: "null"),
            clock: ManualClock(Self.now)
        )
        defer { server.stopMetadataRefresh() }
        server.startMetadataRefresh(client: fixture.client)
        #expect(server.metadataRefresh.withLock { $0.worker } == nil)
        fixture.standIn.serve(try fixture.blob(number: 43))
        #expect(try server.reload(try Fixture.configuration(fixture.folder, url: "\"\(fixture.standIn.url)\"")) == [])
        #expect(Self.eventually { Self.number(server) == 43 }, "the reloaded URL was not fetched")
        #expect(fixture.standIn.requestCount == 1)
        // Another URL (and interval): fetched at once too.
        let second = try MetadataStandIn()
        second.serve(try fixture.blob(number: 44))
        #expect(try server.reload(try Fixture.configuration(fixture.folder, url: "\"\(second.url)\"", refreshHours: 6)) == [])
        #expect(Self.eventually { Self.number(server) == 44 }, "the second URL was not fetched")
        // The same settings again leave the worker as it is (no fetch of its own); null stops it.
        #expect(try server.reload(try Fixture.configuration(fixture.folder, url: "\"\(second.url)\"", refreshHours: 6)) == [])
        #expect(second.requestCount == 1)
        #expect(try server.reload(try Fixture.configuration(fixture.folder, url: "null")) == [])
        #expect(server.metadataRefresh.withLock { $0.worker } == nil)
        #expect(fixture.standIn.requestCount == 1)
    }

    /// Polls `condition` for up to 20 s (the worker's thread fetches through the loopback stand-in).
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    @Test func aKeptBLOBStartsTheServerWhenTheConfiguredFileIsPastItsGrace() throws {
        let signer = try MetadataBLOBSigner.make(at: Self.now)
        let stale = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-05-01", entries: [], number: 40))
        // A configured file past its grace does not start a server without a kept BLOB…
        let fixture = try Fixture(configuredBLOB: stale)
        defer { fixture.client.shutDown() }
        #expect(throws: ConfigurationError.self) { try fixture.server() }
        // …and does with one (fetched by an earlier run, signed under the configured root).
        try fixture.blob(number: 44).write(toFile: fixture.folder.path + "/data/fido-metadata.jwt", atomically: true, encoding: .utf8)
        #expect(Self.number(try fixture.server()) == 44)
    }
}
