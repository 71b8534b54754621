import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability
import Storage
import WebAuthnCore

/// What operators and their tools read: liveness (`/healthz`), readiness (`/readyz`), the OpenAPI document, and the
/// metrics (on the admin listener).
struct OperationsController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let tokens: AccessTokenService
    let settings: SettingsInForce
    /// The process's metrics; nil when `metrics.enabled` is false.
    let metrics: ServerMetrics?
    /// The store's checks of `/readyz`, within 2 s, with a durable write at most every few seconds.
    let storeProbe = StoreReadinessProbe()

    /// `GET /healthz`: liveness (the process answers); `/readyz` checks what serving needs.
    func health(_ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
        JSONBody.ok(["status": "ok"])
    }

    /// The Prometheus text exposition format's content type.
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `GET /metrics` on the admin listener: every metric of the process's registry, in the Prometheus text format
    /// (`404 not_found` when `metrics.enabled` is false).
    func metrics(_ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
        metricsResponse()
    }

    /// The metrics' answer, whoever asks (the route, or the server's `metricsResponse`).
    func metricsResponse() -> HTTPResponse {
        guard let metrics else { return ServerError(.notFound).response }
        var response = HTTPResponse(status: 200, body: Array(metrics.registry.render().utf8))
        response.headers.add("Content-Type", Self.metricsContentType)
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// One readiness check's outcome: "ok", or why not (never a secret: a storage code, a configuration key).
    typealias ReadinessChecks = [(name: String, state: String)]

    /// `GET /readyz`: 200 only when the store answers, its schema is the one this build writes, it takes a durable write
    /// (at most every few seconds; the store's checks answer within 2 s, `StoreReadinessProbe`), an access-token signing key is loaded and active, and the
    /// configured trust material is loaded and usable (the metadata BLOB within its `nextUpdate` plus grace); otherwise
    /// `503 not_ready` with the first failing check in `failing` and every check's state in `checks`.
    func readiness(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let checks = readinessChecks()
        let states = JSONValue.object(Dictionary(uniqueKeysWithValues: checks.map { ($0.name, JSONValue.string($0.state)) }))
        guard let failing = checks.first(where: { $0.state != "ok" }) else {
            return JSONBody.ok(JSONValue.object(["status": .string("ready"), "checks": states]))
        }
        var error = ServerError(.notReady, detail: "\(failing.name): \(failing.state)")
        error.members = ["failing": .string(failing.name), "checks": states]
        throw error
    }

    /// Every check, in order: `store`, `migrations`, `storeWrite`, `signingKeys`, `trustAnchors`, `metadata`.
    func readinessChecks() -> ReadinessChecks {
        let now = time.now
        var checks: ReadinessChecks = storeProbe.checks(of: store, now: now)
        // What a sign-in answer needs to mint its access token: the ring loaded (again, when the key worker stalled) and
        // a key active in it. Keys sealed under another server secret do not open, and leave none.
        do {
            let ring = try tokens.freshRing(at: now)
            checks.append(("signingKeys", ring.activeKey(at: now) == nil ? "none active" : "ok"))
        } catch {
            checks.append(("signingKeys", "cannot be loaded"))
        }
        let current = settings.withLock { $0 }
        let sources = current.attestation.sources
        if sources.trustAnchors != nil {
            checks.append(("trustAnchors", current.attestation.trustAnchors.isEmpty ? "none loaded" : "ok"))
        }
        if sources.metadata != nil {
            if let metadata = current.metadata {
                let usableUntil = metadata.nextUpdate.addingTimeInterval(current.attestation.metadataPolicy.staleBLOBGrace)
                checks.append(("metadata", now < usableUntil ? "ok" : "stale beyond its grace"))
            } else {
                checks.append(("metadata", "not loaded"))
            }
        }
        return checks
    }

    /// `GET /openapi.json`: the OpenAPI 3.1 document of every JSON endpoint (`OpenAPI/openapi.json`, compiled into the
    /// binary). `Tests/Python/openapi` validates real requests and answers against it.
    func openAPIDocument(_ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
        var response = HTTPResponse.json(status: 200, PackageResources.openapi_json)
        response.headers.add("Cache-Control", "public, max-age=3600")
        return response
    }
}
