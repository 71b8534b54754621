import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPServer
import Observability
import OutboundHTTP
import RelyingPartyServer
import Storage

/// `passkeyd serve [--config FILE] [--listen ADDRESS:PORT]`: runs in the foreground, logs to stderr, reloads on SIGHUP
/// and stops gracefully on SIGTERM/SIGINT. `--listen` (else `PASSKEYD_LISTEN`) and `PASSKEYD_DATA` override the
/// file's HTTPS listener and data folder (`ServeOverrides`).
struct ServeCommand {
    let arguments: [String]
    /// The process's environment (`PASSKEYD_LISTEN`, `PASSKEYD_DATA`).
    let environment: [String: String]

    /// Why serve cannot start: the message and the exit status (2 for a bad `--listen` or environment value, else 1).
    struct StartFailure: Error, Equatable {
        let status: Int32
        let message: String
    }

    /// Seconds a stop waits for requests in progress before it closes their connections.
    static let drainSeconds = 10.0

    static let syntax = CommandLineSyntax(
        usage: "passkeyd serve [--config FILE] [--listen ADDRESS:PORT] [--allow-incompatible-migration]",
        options: ["--config", "--listen"],
        switches: ["--allow-incompatible-migration"]
    )

    func run() -> Int32 {
        // Before any thread starts, so that none of them takes a stop or reload signal (see `SignalWaiter`).
        SignalWaiter.blockSignals()
        let configuration: ServerConfiguration
        let configurationPath: String?
        let overrides: ServeOverrides
        switch loadConfiguration() {
        case .success(let loaded): (configuration, configurationPath, overrides) = loaded
        case .failure(let failure): return fail(failure.message, status: failure.status)
        }
        let log = LogWriter(
            format: configuration.logFormat ?? LogWriter.defaultFormat(),
            node: configuration.nodeName ?? LogWriter.hostName,
            now: { Date() }
        ).logger(level: configuration.logLevel)
        for warning in configuration.associatedDomains.warnings { log.warning(warning, event: "configuration") }
        if configuration.rateLimits.trustForwardedFor {
            log.warning(
                "rateLimits.trustForwardedFor is deprecated and removed in 0.3.0: it lets any client that reaches passkeyd directly choose its address; list your proxies in rateLimits.trustedProxies",
                event: "configuration"
            )
        }
        do {
            try DataFolderPermissions.createFolder(configuration.dataDirectory)
        } catch {
            return fail("cannot create the data folder \(configuration.dataDirectory)")
        }
        // Held until the process ends; `passkeyd restore` refuses while it is held, and holds it while it writes.
        let folderLock: DataFolderLock
        do {
            guard let lock = try DataFolderLock(folder: configuration.dataDirectory, mode: .shared) else {
                return fail("a restore (passkeyd restore) holds the data folder \(configuration.dataDirectory): start once it has finished")
            }
            folderLock = lock
        } catch {
            return fail("cannot open the data folder \(configuration.dataDirectory)")
        }
        let tls: TLSServerContext?
        do {
            tls = try Self.tlsContext(configuration, dataDirectory: configuration.dataDirectory)
        } catch {
            return fail("TLS: \(error)")
        }
        // The process's metrics, for /metrics (none when metrics.enabled is false).
        let metrics = configuration.metricsEnabled ? MetricsRegistry() : nil
        if configuration.postgresConnectionString == nil { Deployment.forwardSQLiteLog(to: log) }
        let deployment: Deployment
        do {
            deployment = try Deployment(
                configuration,
                metrics: metrics,
                log: log,
                allowingIncompatibleMigration: overrides.allowsIncompatibleMigration
            )
            try deployment.server.work.startDeliveries()
        } catch let error as ConfigurationError {
            return fail("invalid configuration: \(error)")
        } catch let error as HTTPClientError {
            return fail("cannot start the outbound HTTP client: \(error)")
        } catch {
            return fail("cannot start: \(error)")
        }
        let (server, opened, outbound) = (deployment.server, deployment.opened, deployment.outbound)
        let http: HTTPServer
        let adminHTTP: HTTPServer?
        do {
            http = try HTTPServer(configuration: configuration.httpServerConfiguration(tls: tls, log: log), handler: server)
            adminHTTP = try configuration.adminHTTPServerConfiguration(tls: tls, log: log).map { settings in
                try HTTPServer(configuration: settings, handler: AdminAPI(server: server))
            }
        } catch {
            return fail("cannot listen: \(error)")
        }
        if let metrics { Self.collect(http: http, store: opened, into: metrics) }
        let database = configuration.postgresConnectionString == nil ? configuration.databasePath : nil
        let databaseFiles = database.map { [$0, $0 + "-wal", $0 + "-shm"] } ?? []
        for warning in DataFolderPermissions.warnings(folder: configuration.dataDirectory, extraFiles: databaseFiles) {
            log.warning(warning, event: "configuration")
        }
        http.start()
        adminHTTP?.start()
        server.work.startRefreshes(client: outbound)
        if let port = http.httpsPort {
            log("serving https://\(configuration.relyingPartyID):\(port)/ (relying party \(configuration.relyingPartyID))")
        }
        if let port = http.httpPort { log("serving plain HTTP on port \(port) (for a TLS-terminating proxy)") }
        if let adminHTTP, let port = adminHTTP.httpsPort ?? adminHTTP.httpPort {
            log("serving the admin API on \(adminHTTP.httpsPort == nil ? "http" : "https")://\(configuration.adminHost):\(port)/admin/")
        }
        let listeners = [http] + (adminHTTP.map { [$0] } ?? [])
        SignalWaiter.waitForTermination {
            Self.reload(configurationPath, overrides: overrides, running: configuration, server: server, listeners: listeners, log: log)
        }
        log("stopping: no new connections, requests in progress get \(Int(Self.drainSeconds)) s")
        // Both listeners stop accepting at once and drain side by side.
        DispatchQueue.concurrentPerform(iterations: listeners.count) { index in listeners[index].stop(drainingWithin: Self.drainSeconds) }
        server.work.stop()
        deployment.close()
        withExtendedLifetime(folderLock) { log("stopped") }
        return 0
    }

    /// The listeners' and the PostgreSQL pool's metrics, read at each scrape.
    private static func collect(http: HTTPServer, store: ConfiguredStore, into metrics: MetricsRegistry) {
        metrics.collect("passkeyd_connections_open", "Client connections open now.") { [([], Double(http.statistics.openConnections))] }
        metrics.collect(
            "passkeyd_tls_handshakes_total",
            "TLS handshakes of client connections, by outcome (ok, failed).",
            type: .counter,
            labels: ["outcome"]
        ) {
            let statistics = http.statistics
            return [(["ok"], Double(statistics.tlsHandshakes)), (["failed"], Double(statistics.tlsHandshakeFailures))]
        }
        metrics.collect("passkeyd_requests_queued", "Requests waiting for a worker thread now.") {
            [([], Double(http.statistics.queuedRequests))]
        }
        metrics.collect(
            "passkeyd_requests_busy_total",
            "Requests answered 503 server_busy at once because the worker queue was full (limits.maximumQueuedRequests).",
            type: .counter
        ) { [([], Double(http.statistics.busyRefusals))] }
        metrics.collect("passkeyd_suspect_lane_queued", "Requests of suspect addresses waiting for a thread of the suspect lane now.") {
            [([], Double(http.suspectLaneStatistics.queued))]
        }
        metrics.collect(
            "passkeyd_suspect_lane_requests_total",
            "Requests of suspect addresses (recent refusals) sent to the suspect lane (limits.suspectLane).",
            type: .counter
        ) { [([], Double(http.suspectLaneStatistics.admitted))] }
        metrics.collect(
            "passkeyd_suspect_lane_shed_total",
            "Requests of suspect addresses answered 429 rate_limited at once because the suspect lane's queue was full.",
            type: .counter
        ) { [([], Double(http.suspectLaneStatistics.shed))] }
        metrics.collect("passkeyd_suspect_addresses", "Client addresses that are suspects now (limits.suspectLane.refusals recent refusals).") {
            [([], Double(http.suspectLaneStatistics.suspects))]
        }
        guard let poolWaits = store.poolWaits else { return }
        metrics.collect(
            "passkeyd_postgres_pool_waits_total",
            "Store calls that found every PostgreSQL connection lent and waited (outcome=waited), and those that gave up (outcome=timeout).",
            type: .counter,
            labels: ["outcome"]
        ) {
            let counts = poolWaits()
            return [(["waited"], Double(counts.waits)), (["timeout"], Double(counts.timeouts))]
        }
    }

    /// The HTTPS listener's context: the configured certificate and key, or the self-signed pair in `dataDirectory`
    /// (made when missing); nil without an HTTPS listener.
    private static func tlsContext(_ configuration: ServerConfiguration, dataDirectory: String) throws -> TLSServerContext? {
        guard configuration.httpsAddress != nil else { return nil }
        let certificate = configuration.certificateFile ?? dataDirectory + "/tls-certificate.pem"
        let privateKey = configuration.privateKeyFile ?? dataDirectory + "/tls-private-key.pem"
        if configuration.certificateFile == nil {
            try SelfSignedCertificate.ensure(
                certificateFile: certificate,
                privateKeyFile: privateKey,
                hostNames: [configuration.relyingPartyID, "127.0.0.1"],
                now: Date()
            )
        }
        return try TLSServerContext(certificateChainFile: certificate, privateKeyFile: privateKey)
    }

    /// SIGHUP: reads the configuration file again and, when all of it loads (the TLS certificate and key included),
    /// puts the certificate, the associated-domain files, the trust material and the webhooks in force; otherwise logs
    /// why and keeps what runs. Settings that only a restart changes are named.
    private static func reload(
        _ path: String?,
        overrides: ServeOverrides,
        running: ServerConfiguration,
        server: RelyingPartyServer,
        listeners: [HTTPServer],
        log: Logger
    ) {
        do {
            let replacement = overrides.applied(to: try path.map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8)))
            // The listener stays where it is: the certificate follows the new tls block, the self-signed pair stays in
            // the running data folder.
            var listening = replacement
            listening.httpsAddress = running.httpsAddress
            let tls = try tlsContext(listening, dataDirectory: running.dataDirectory)
            let needRestart = try server.reload(replacement)
            if let tls { listeners.forEach { $0.replaceTLSContext(tls) } }
            for warning in replacement.associatedDomains.warnings { log.warning(warning, event: "configuration") }
            log("reloaded \(path ?? "the embedded defaults")", event: "reload")
            if !needRestart.isEmpty {
                log.warning("changed settings that need a restart to take effect: \(needRestart.joined(separator: ", "))", event: "reload")
            }
        } catch {
            log.error("reload refused, the running configuration stays in force: \(error)", event: "reload")
        }
    }

    /// The configuration serve runs with: the file's (or the embedded defaults) with the command line's and the
    /// environment's overrides in force.
    func loadConfiguration() -> Result<(ServerConfiguration, String?, ServeOverrides), StartFailure> {
        let line: ParsedCommandLine
        let overrides: ServeOverrides
        do {
            line = try Self.syntax.parse(arguments)
        } catch {
            // serve keeps its status 1 for a malformed command line (CommandLineTests).
            return .failure(StartFailure(status: 1, message: "\(error)"))
        }
        do {
            var parsed = try ServeOverrides(listen: line.value("--listen"), environment: environment, usage: Self.syntax.usage)
            parsed.allowsIncompatibleMigration = line.isSet("--allow-incompatible-migration")
            overrides = parsed
        } catch {
            return .failure(StartFailure(status: 2, message: "\(error)"))
        }
        let path = line.value("--config")
        do {
            let file = try path.map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
            return .success((overrides.applied(to: file), path, overrides))
        } catch {
            return .failure(StartFailure(status: 1, message: "invalid configuration: \(error)"))
        }
    }

    private func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd serve: \(message)\n".utf8))
        return status
    }
}
