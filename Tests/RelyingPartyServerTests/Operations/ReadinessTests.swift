import AccessTokens
import CryptoCore
import Foundation
import HTTPServer
import Storage
import StorageSQLite
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `GET /readyz`: 200 only when the store answers at the current schema and the trust material is loaded and usable;
/// `503 not_ready` naming the failing check otherwise. `/healthz` stays liveness.
struct ReadinessTests {
    static func get(_ server: RelyingPartyServer, _ path: String) -> (status: Int, json: [String: Any]) {
        let response = server.handle(HTTPRequest(method: "GET", path: path))
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    @Test func aServerWithAWorkingStoreIsReady() throws {
        let folder = try TemporaryFolder()
        let server = try TestServerFactory.make(store: try SQLiteStore(path: folder.path + "/passkeyd.sqlite"))
        let ready = Self.get(server, "/readyz")
        #expect(ready.status == 200)
        #expect(ready.json["status"] as? String == "ready")
        #expect(ready.json["checks"] as? [String: String] == ["store": "ok", "migrations": "ok", "storeWrite": "ok", "signingKeys": "ok"])
    }

    @Test func aStoreThatDoesNotAnswerIsNotReadyWhileTheProcessStaysLive() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let server = try TestServerFactory.make(store: store)
        store.close()
        let reply = Self.get(server, "/readyz")
        #expect(reply.status == 503)
        #expect(reply.json["error"] as? String == "not_ready")
        #expect(reply.json["failing"] as? String == "store")
        #expect((reply.json["checks"] as? [String: String])?["store"] == "storage.unavailable")
        #expect(Self.get(server, "/healthz").status == 200)
    }

    @Test func aSchemaOtherThanThisBuildsIsNotReady() throws {
        let store = FailingStore(InMemoryStore())
        let server = try TestServerFactory.make(store: store)
        #expect(Self.get(server, "/readyz").status == 200)
        store.schemaAhead.withLock { $0 = 1 }
        let reply = Self.get(server, "/readyz")
        #expect(reply.status == 503)
        #expect(reply.json["failing"] as? String == "migrations")
        #expect((reply.json["checks"] as? [String: String])?["migrations"] == "schema 2 of 1")
    }

    /// A store that answers reads but refuses writes (a full disk, a read-only file) is not ready, and says what
    /// refused; the write is made at most every few seconds, however many probes ask.
    @Test func aStoreThatRefusesWritesIsNotReady() throws {
        let store = FailingStore(InMemoryStore())
        let clock = ManualClock()
        let server = try TestServerFactory.make(store: store, clock: clock)
        #expect(Self.get(server, "/readyz").status == 200)
        store.writeFailure.withLock { $0 = StorageError(.unavailable, "no space left", outage: .noSpace) }
        // Within the interval the last outcome is shared: no second write.
        #expect(Self.get(server, "/readyz").status == 200)
        #expect(store.writeProbes.withLock { $0 } == 1)
        clock.advance(by: StoreReadinessProbe.writeInterval)
        let reply = Self.get(server, "/readyz")
        #expect(reply.status == 503)
        #expect(reply.json["failing"] as? String == "storeWrite")
        #expect((reply.json["checks"] as? [String: String])?["storeWrite"] == "storage.unavailable (noSpace)")
        #expect(store.writeProbes.withLock { $0 } == 2)
        store.writeFailure.withLock { $0 = nil }
        clock.advance(by: StoreReadinessProbe.writeInterval)
        #expect(Self.get(server, "/readyz").status == 200)
    }

    /// A node whose server secret opens none of the deployment's signing keys cannot mint the access token of any
    /// sign-in answer: it is not ready, and says which check failed.
    @Test func aNodeWithoutAnActiveSigningKeyIsNotReady() throws {
        let store = InMemoryStore()
        #expect(Self.get(try TestServerFactory.make(store: store), "/readyz").status == 200)
        let stranger = try TestServerFactory.make(store: store, enumerationSecret: Array(repeating: 0x11, count: 32))
        let reply = Self.get(stranger, "/readyz")
        #expect(reply.status == 503)
        #expect(reply.json["error"] as? String == "not_ready")
        #expect(reply.json["failing"] as? String == "signingKeys")
        #expect(reply.json["checks"] as? [String: String] == ["store": "ok", "migrations": "ok", "storeWrite": "ok", "signingKeys": "none active"])
    }

    /// A key worker that stalled while the store went away: the ring is reloaded for the check, and fails with it.
    @Test func signingKeysThatCannotBeReloadedAreNotReady() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let clock = ManualClock()
        let server = try TestServerFactory.make(store: store, clock: clock)
        clock.advance(by: SigningKeyRing.maximumAge)
        store.close()
        let reply = Self.get(server, "/readyz")
        #expect(reply.status == 503)
        #expect((reply.json["checks"] as? [String: String])?["signingKeys"] == "cannot be loaded")
    }

    @Test func aMetadataBLOBPastItsGraceIsNotReady() throws {
        let folder = try TemporaryFolder()
        let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let signer = try MetadataBLOBSigner.make(at: now)
        let blob = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-01", entries: []))
        try blob.write(toFile: folder.path + "/blob.jwt", atomically: true, encoding: .utf8)
        try AttestationConfigurationTests.pem(signer.root).write(toFile: folder.path + "/root.pem", atomically: true, encoding: .utf8)
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "attestation": {"metadata": "#
                + #"{"file": "\#(folder.path)/blob.jwt", "root": "\#(folder.path)/root.pem", "staleGraceDays": 7}}}"#
        )
        let clock = ManualClock(now)
        let server = try TestServerFactory.make(configuration: configuration, clock: clock)
        let ready = Self.get(server, "/readyz")
        #expect(ready.status == 200)
        #expect((ready.json["checks"] as? [String: String])?["metadata"] == "ok")
        clock.advance(by: 34 * 86_400 + 7 * 86_400)
        let stale = Self.get(server, "/readyz")
        #expect(stale.status == 503)
        #expect(stale.json["failing"] as? String == "metadata")
    }
}
