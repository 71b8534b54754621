import BackgroundWork
import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import Observability
import OutboundHTTP
import WebAuthnCore

/// The background fetch of the FIDO metadata BLOB (`attestation.metadata.url`): the client it fetches with (from
/// `start` to `stop`) and its worker while one runs (a reload that changes `attestation.metadata` replaces it). A BLOB
/// that verifies and is newer than the one held goes into the settings in force and the data folder's cache.
final class MetadataRefresher: Sendable {
    /// The largest metadata BLOB fetched (the FIDO Alliance's is a few MB).
    static let maximumMetadataSize = 32 * 1_048_576

    /// The settings in force: where the attestation settings are read and a fresher BLOB is swapped in.
    let settings: SettingsInForce
    /// The data folder's copy of the last BLOB taken (`ReloadableSettings.metadataCache`).
    let cachePath: String
    let time: any TimeSource
    let metrics: ServerMetrics?
    let log: Logger
    /// The client and the worker while one runs.
    let state = InForce<State>(State())

    init(settings: SettingsInForce, cachePath: String, time: any TimeSource, metrics: ServerMetrics?, log: Logger) {
        self.settings = settings
        self.cachePath = cachePath
        self.time = time
        self.metrics = metrics
        self.log = log
    }

    /// What one metadata refresh did.
    enum Outcome: Equatable, Sendable {
        /// A newer BLOB verified and is in force (its `no`).
        case refreshed(number: Int)
        /// The BLOB fetched verified but is not newer than the one held.
        case unchanged(number: Int)
        /// Nothing usable was fetched (why, for the log: a status, a transport or verification code).
        case failed(String)
        /// No `attestation.metadata` or no `url`.
        case notConfigured
    }

    /// What runs the background fetch.
    struct State: Sendable {
        var client: HTTPClient?
        var worker: PeriodicWorker?
    }

    /// Starts fetching `attestation.metadata.url` in the background through `client`: at once, then every
    /// `refreshHours`. Does nothing without a metadata URL, until a reload configures one.
    func start(client: HTTPClient) {
        state.withLock { $0.client = client }
        restart()
    }

    /// Stops the background fetch (after a fetch in progress); a reload starts none after this.
    func stop() {
        let worker = state.withLock { refresh in
            defer { refresh = State() }
            return refresh.worker
        }
        worker?.stop()
    }

    /// Replaces the worker by one for the settings in force (none without a metadata URL): after a reload that changed
    /// `attestation.metadata`, so that a new URL is fetched at once and a new `refreshHours` is followed.
    func restart() {
        let attestation = settings.withLock { $0.attestation }
        let (client, previous) = state.withLock { refresh in
            defer { refresh.worker = nil }
            return (refresh.client, refresh.worker)
        }
        previous?.stop()
        guard let client, attestation.sources.metadata != nil, attestation.metadataURL != nil else { return }
        let worker = PeriodicWorker(name: "passkeyd-mds", interval: attestation.metadataRefreshSeconds) { [weak self] in
            _ = self?.refresh(client: client)
        }
        state.withLock { $0.worker = worker }
        worker.start()
    }

    /// What decides the background fetch: whether metadata is configured, its URL and its interval.
    static func schedule(_ attestation: AttestationSettings) -> (configured: Bool, url: String?, seconds: TimeInterval) {
        (attestation.sources.metadata != nil, attestation.metadataURL, attestation.metadataRefreshSeconds)
    }

    /// Fetches the BLOB once and, when it verifies exactly as at start-up (JWS to the configured roots, `nextUpdate`
    /// plus grace) and is newer than the one held, keeps it in the data folder for the next start and swaps it in.
    /// A failure is logged and counted and changes nothing: the held BLOB serves on (`/readyz` reports it once it is
    /// past its grace).
    @discardableResult
    func refresh(client: HTTPClient) -> Outcome {
        let held = settings.withLock { $0 }
        guard held.attestation.sources.metadata != nil, let url = held.attestation.metadataURL else { return .notConfigured }
        let outcome: Outcome
        do {
            let reply = try client.sendAndWait(
                HTTPClientRequest(url: url, deadlineSeconds: 120, maximumReplyBodySize: Self.maximumMetadataSize)
            )
            guard reply.status == 200 else { throw MetadataFetchFailure("status \(reply.status)") }
            let text = String(decoding: reply.body, as: UTF8.self)
            let blob = try MetadataBLOB(
                compactJWS: text,
                trustedRoots: held.attestation.material.metadataRoots,
                at: time.now,
                policy: held.attestation.metadataPolicy
            )
            if let current = held.metadata, blob.number <= current.number {
                outcome = .unchanged(number: current.number)
            } else {
                try keepMetadata(text)
                settings.withLock { settings in
                    if (settings.metadata?.number ?? Int.min) < blob.number {
                        settings.metadata = blob
                        settings.metadataTakenAt = time.now
                    }
                }
                outcome = .refreshed(number: blob.number)
            }
        } catch let error as HTTPClientError {
            outcome = .failed(error.code.rawValue)
        } catch let error as WebAuthnError {
            outcome = .failed(error.code.rawValue)
        } catch {
            outcome = .failed("\(error)")
        }
        switch outcome {
        case .refreshed(let number): log("metadata: BLOB no. \(number) fetched, verified and in force", event: "metadata")
        case .unchanged(let number): log.debug("metadata: the BLOB fetched is not newer than no. \(number)", event: "metadata")
        case .failed(let reason): log.warning("metadata: refresh failed (\(reason)); the BLOB held stays in force", event: "metadata")
        case .notConfigured: break
        }
        metrics?.record(outcome)
        return outcome
    }

    /// Writes the BLOB to the data folder's cache atomically (a temporary file renamed over it).
    private func keepMetadata(_ text: String) throws {
        let path = cachePath
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            throw MetadataFetchFailure("cannot write \(path)")
        }
    }
}

/// Why a fetched metadata BLOB was not taken, when it is neither a transport nor a verification error.
struct MetadataFetchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
