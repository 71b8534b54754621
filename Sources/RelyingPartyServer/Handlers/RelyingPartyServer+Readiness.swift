import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    /// One readiness check's outcome: "ok", or why not (never a secret: a storage code, a configuration key).
    typealias ReadinessChecks = [(name: String, state: String)]

    /// `GET /readyz`: 200 only when the store answers, its schema is the one this build writes, an access-token signing
    /// key is loaded and active, and the configured trust material is loaded and usable (the metadata BLOB within its
    /// `nextUpdate` plus grace); otherwise
    /// `503 not_ready` with the first failing check in `failing` and every check's state in `checks`.
    func readiness(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let checks = readinessChecks()
        let states = JSONValue.object(Dictionary(uniqueKeysWithValues: checks.map { ($0.name, JSONValue.string($0.state)) }))
        guard let failing = checks.first(where: { $0.state != "ok" }) else {
            return JSONBody.ok(JSONValue.object(["status": .string("ready"), "checks": states]))
        }
        var error = ServerError(.notReady, detail: "\(failing.name): \(failing.state)")
        error.members = ["failing": .string(failing.name), "checks": states]
        throw error
    }

    /// Every check, in order: `store`, `migrations`, `signingKeys`, `trustAnchors`, `metadata`.
    func readinessChecks() -> ReadinessChecks {
        var checks: ReadinessChecks = []
        let now = time.now
        do {
            let status = try store.status(now: now)
            checks.append(("store", "ok"))
            checks.append(("migrations", status.isMigrated ? "ok" : "schema \(status.schemaVersion) of \(status.latestSchemaVersion)"))
        } catch {
            checks.append(("store", error.code.rawValue))
            checks.append(("migrations", "unknown"))
        }
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
}
