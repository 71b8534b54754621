import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import Storage
import StorageSQLite
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// `/metrics` as prometheus-client's parser reads it: the ceremony funnel with its stable failure codes, registrations
/// by format and authenticator, backup-state changes, clone warnings, latency per route pattern, rate-limit refusals,
/// store errors, what the store holds; and the listener's connections and TLS handshakes.
struct MetricsTests {
    static func scrape(_ server: RelyingPartyServer) throws -> [String: PrometheusParser.Family] {
        let response = server.metricsResponse()
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == OperationsController.metricsContentType)
        return try PrometheusParser.parse(String(decoding: response.body, as: UTF8.self))
    }

    @Test func theCeremonyFunnelCountsEachStageWithTheStableCodeOfEveryFailure() throws {
        let server = try TestServerFactory.make()
        let client = PasskeyClient(DirectTransport(handler: server))
        let account = try client.register("alice")
        #expect(try client.signIn(account.credential, .init(signCount: 5)).status == 200)
        // BS changes at this sign-in (the authenticator synced the passkey).
        #expect(
            try client.signIn(account.credential, .init(flags: [.userPresent, .userVerified, .backupEligible, .backupState], signCount: 6)).status
                != 500
        )
        let clone = try client.signIn(account.credential, .init(signCount: 2))
        #expect(clone.errorCode == "possible_clone")
        // A registration answered on a page the server does not serve.
        let options = try client.registrationOptions(username: "mallory").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let stranger = try SoftwareCredential.generate(.es256, userHandle: try PasskeyClient.bytes(options.user.id))
        let wrongOrigin = try SoftwareAuthenticator(relyingPartyID: "example.com", origin: "https://evil.example").register(
            stranger,
            challenge: try PasskeyClient.bytes(options.challenge)
        )
        let refused = try client.registrationVerify(wrongOrigin)
        #expect(refused.status == 400)
        let originStep = try #require(refused.object["step"] as? String)

        let families = try Self.scrape(server)
        let funnel = try #require(families["passkeyd_ceremonies"])
        #expect(funnel.type == "counter")
        func count(_ kind: String, _ stage: String, _ outcome: String, _ code: String = "") -> Double? {
            funnel.value("passkeyd_ceremonies_total", ["kind": kind, "stage": stage, "outcome": outcome, "code": code])
        }
        #expect(count("registration", "options", "ok") == 2)
        #expect(count("registration", "verify", "ok") == 1)
        #expect(count("registration", "verify", "failed", originStep) == 1)
        #expect(originStep == WebAuthnError.Code.originMismatch.rawValue)
        #expect(count("authentication", "options", "ok") == 3)
        #expect(count("authentication", "verify", "failed", clone.object["step"] as? String ?? "?") == 1)
        // Every failure code in the funnel is a stable code: the core's, the store's or the server's.
        let knownCodes = Set(
            WebAuthnError.Code.allCases.map(\.rawValue) + StorageError.Code.allCases.map(\.rawValue) + ServerError.Code.allCases.map(\.rawValue)
        )
        for sample in funnel.samples where sample.labels["outcome"] == "failed" {
            #expect(knownCodes.contains(sample.labels["code"] ?? ""), "\(sample)")
        }
        #expect(families["passkeyd_registrations"]?.value("passkeyd_registrations_total", ["format": "none", "authenticator": "unknown"]) == 1)
        #expect(families["passkeyd_clone_warnings"]?.value("passkeyd_clone_warnings_total") == 1)
        #expect(families["passkeyd_passkey_backup_changes"]?.value("passkeyd_passkey_backup_changes_total", ["flag": "state"]) == 1)
        #expect(families["passkeyd_sessions_active"]?.value("passkeyd_sessions_active") == 3)

        // Latency per route pattern; no label anywhere carries a credential ID or a username.
        let durations = try #require(families["passkeyd_request_duration_seconds"])
        #expect(durations.type == "histogram")
        let verifyCount = durations.value("passkeyd_request_duration_seconds_count", ["method": "POST", "route": "/webauthn/registration/verify"])
        #expect(verifyCount == 2)
        let credentialID = Base64URL.encode(account.credential.id)
        for family in families.values {
            for sample in family.samples {
                #expect(!sample.labels.values.contains { $0.contains(credentialID) || $0.contains("alice") || $0.contains("mallory") })
            }
        }
    }

    /// A request's ceremony stage is found with its route's latency series, in one lookup: every stage must name a
    /// route of the table, or its requests would go uncounted.
    @Test func everyCeremonyStageIsARouteOfTheTable() {
        let routes = Set(RelyingPartyServer.routes.map { ServerMetrics.RouteKey($0.method, $0.path) })
        #expect(ServerMetrics.ceremonyStages.count == 9)
        for key in ServerMetrics.ceremonyStages.keys {
            #expect(routes.contains(key), "\(key.method) \(key.route)")
        }
    }

    @Test func rateLimitRefusalsAreCountedByRuleAndStoreFailuresAsStoreErrors() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAddressBurst": 2, "perAddressPerMinute": 1}}"#
        )
        let server = try TestServerFactory.make(configuration: configuration, store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        // Named sign-ins: their challenges are stored (a discoverable one's is sealed, and stored once used).
        let statuses = try (0..<4).map { _ in try client.authenticationOptions(username: "nobody").status }
        #expect(statuses == [200, 200, 429, 429])
        var families = try Self.scrape(server)
        #expect(families["passkeyd_rate_limited"]?.value("passkeyd_rate_limited_total", ["rule": "address"]) == 2)
        #expect(families["passkeyd_challenges_outstanding"]?.value("passkeyd_challenges_outstanding") == 2)
        let limited = families["passkeyd_ceremonies"]?.value(
            "passkeyd_ceremonies_total",
            ["kind": "authentication", "stage": "options", "outcome": "failed", "code": "rate_limited"]
        )
        #expect(limited == 2)

        store.close()
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer("x")).status == 503)
        families = try Self.scrape(server)
        #expect(families["passkeyd_store_errors"]?.value("passkeyd_store_errors_total") == 1)
        // The scrape's own three failed store reads show at the next one (the gauges it could not fill are left out).
        families = try Self.scrape(server)
        #expect(families["passkeyd_store_errors"]?.value("passkeyd_store_errors_total") == 4)
        #expect(families["passkeyd_challenges_outstanding"]?.samples.isEmpty == true)
    }

    /// The age of the key that signs now, not of the oldest one published: an operator alerts when rotation stalls.
    @Test func theSigningKeyAgeIsThatOfTheKeyInForce() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_780_000_000))
        let store = InMemoryStore()
        let server = try TestServerFactory.make(store: store, clock: clock)
        clock.advance(by: 3600)
        let age = { try Self.scrape(server)["passkeyd_signing_key_age_seconds"] }
        #expect(try age()?.type == "gauge")
        #expect(try age()?.value("passkeyd_signing_key_age_seconds") == 3600)
        _ = try server.tokens.ring.schedule.rotate(store: store, now: clock.now, immediately: true)
        #expect(server.tokens.updateKeys())
        clock.advance(by: 60)
        #expect(try age()?.value("passkeyd_signing_key_age_seconds") == 60)
        // Under another server secret no key opens: no age is reported rather than a made-up one.
        let stranger = try TestServerFactory.make(store: store, clock: clock, enumerationSecret: Array(repeating: 0x11, count: 32))
        #expect(try Self.scrape(stranger)["passkeyd_signing_key_age_seconds"]?.samples.isEmpty == true)
    }

    @Test func withMetricsOffNothingIsCountedAndMetricsIsNotFound() throws {
        let server = try RelyingPartyServer(
            configuration: try TestServerFactory.configuration(),
            store: InMemoryStore(),
            enumerationSecret: [1, 2, 3],
            metrics: nil
        )
        #expect(server.metricsResponse().status == 404)
        #expect(server.handle(HTTPRequest(method: "GET", path: "/healthz")).status == 200)
    }

    @Test func theListenerCountsOpenConnectionsAndTLSHandshakes() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let connection = try KeepAliveConnection(port: server.port)
        #expect(try connection.get("/healthz").status == 200)
        // A client that is not speaking TLS on the HTTPS port.
        let raw = try RawConnection(port: server.port)
        raw.send("GET / HTTP/1.1\r\n\r\n")
        _ = raw.receiveUntilClosed(within: 2)
        raw.close()
        let deadline = Date().addingTimeInterval(5)
        while server.http.statistics.tlsHandshakeFailures < 1, Date() < deadline { usleep(20_000) }
        let statistics = server.http.statistics
        #expect(statistics.tlsHandshakes >= 1)
        #expect(statistics.tlsHandshakeFailures == 1)
        #expect(statistics.openConnections >= 1)
    }
}

/// What `passkeyd serve` adds to `/metrics` from its listeners (wired in `ServeCommand`): connections open, TLS
/// handshakes, the worker queue and its `503 server_busy` refusals, scraped from a running process.
@Suite(.serialized) struct ServeMetricsTests {
    @Test func theListenersFiguresAreScrapedFromARunningServer() throws {
        let folder = try TemporaryFolder()
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            adminListener: true
        )
        defer { _ = server.terminate() }
        let connection = try KeepAliveConnection(port: server.port)
        #expect(try connection.get("/healthz").status == 200)
        let reply = try CurlTransport(port: try #require(server.adminPort)).send("GET", "/metrics", body: nil, headers: [])
        #expect(reply.status == 200)
        let families = try PrometheusParser.parse(reply.text)
        #expect((families["passkeyd_connections_open"]?.value("passkeyd_connections_open") ?? 0) >= 1)
        #expect((families["passkeyd_tls_handshakes"]?.value("passkeyd_tls_handshakes_total", ["outcome": "ok"]) ?? 0) >= 1)
        #expect(families["passkeyd_requests_queued"]?.value("passkeyd_requests_queued") == 0)
        #expect(families["passkeyd_requests_busy"]?.value("passkeyd_requests_busy_total") == 0)
        #expect(families["passkeyd_requests_busy"]?.type == "counter")
        // The suspect lane (issue 44): nothing waiting, nothing shed, no suspect after one clean request.
        #expect(families["passkeyd_suspect_lane_queued"]?.value("passkeyd_suspect_lane_queued") == 0)
        #expect(families["passkeyd_suspect_lane_requests"]?.value("passkeyd_suspect_lane_requests_total") == 0)
        #expect(families["passkeyd_suspect_lane_shed"]?.value("passkeyd_suspect_lane_shed_total") == 0)
        #expect(families["passkeyd_suspect_lane_shed"]?.type == "counter")
        #expect(families["passkeyd_suspect_addresses"]?.value("passkeyd_suspect_addresses") == 0)
    }
}

/// `/metrics` on the admin listener: without a key on a loopback `listen.admin`, with one otherwise.
struct AdminMetricsTests {
    static func configuration(adminAddress: String) -> String {
        AdminAPITests.configuration.replacingOccurrences(of: #""admin": "127.0.0.1:0""#, with: #""admin": "\#(adminAddress)""#)
    }

    @Test func aLoopbackAdminListenerServesMetricsWithoutAKeyAndNothingElse() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration(adminAddress: "127.0.0.1:0")))
        let admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        _ = try PasskeyClient(DirectTransport(handler: server)).register("alice")
        let reply = try admin.send("GET", "/metrics")
        #expect(reply.status == 200)
        let families = try PrometheusParser.parse(reply.text)
        #expect(
            families["passkeyd_ceremonies"]?.value(
                "passkeyd_ceremonies_total",
                ["kind": "registration", "stage": "verify", "outcome": "ok", "code": ""]
            ) == 1
        )
        #expect(try admin.send("POST", "/metrics").status == 401, "another method is an admin call")
        #expect(try admin.send("GET", "/admin/users").status == 401, "the admin API still needs a key")
    }

    @Test func anAdminListenerOffLoopbackNeedsAKeyForMetrics() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration(adminAddress: "0.0.0.0:0")))
        let admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        #expect(try admin.send("GET", "/metrics").errorCode == "admin_unauthorized")
        let reply = try admin.send("GET", "/metrics", headers: AdminAPITests.key)
        #expect(reply.status == 200)
        #expect(try PrometheusParser.parse(reply.text)["passkeyd_request_duration_seconds"]?.type == "histogram")
    }
}
