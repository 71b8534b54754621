import ConfigurationFile
import ConfigurationReading
import Foundation
import Observability
import OutboundHTTP
import RelyingPartyServer
import StorageSQLite

/// The composition root: what `serve` and every command that acts on a deployment build from one configuration, the
/// same way — the process's one outbound HTTP(S) client, the store the configuration names with its secrets, and the
/// server with every configured feature (Apple, webhooks, tokens …). A command that does not serve requests starts no
/// worker, so nothing is sent from it, but it can use every configuration that `serve` accepts.
final class Deployment {
    let outbound: HTTPClient
    let opened: ConfiguredStore
    let server: RelyingPartyServer

    /// Throws `ConfigurationError` for a configuration the server refuses, anything else for what cannot be opened.
    /// `allowingIncompatibleMigration`: `serve --allow-incompatible-migration` (`PostgresMigrations.Step`).
    init(_ configuration: ServerConfiguration, metrics: MetricsRegistry?, log: Logger, allowingIncompatibleMigration: Bool = false) throws {
        outbound = try HTTPClient()
        do {
            opened = try ConfiguredStore(configuration, log: log, allowingIncompatibleMigration: allowingIncompatibleMigration)
        } catch {
            outbound.shutDown()
            throw error
        }
        do {
            let outbound = outbound
            let opened = opened
            server = try RelyingPartyServer(
                configuration: configuration,
                store: opened.store,
                enumerationSecret: try opened.secrets.secret(named: SecretSource.serverSecret),
                appleSetup: try configuration.apple.map { apple in try opened.appleSetup(apple, client: outbound, log: log) },
                webhookClient: outbound,
                metrics: metrics,
                log: log
            )
        } catch {
            opened.close()
            outbound.shutDown()
            throw error
        }
    }

    /// Closes the store and stops the outbound client; after the server's workers have stopped.
    func close() {
        outbound.shutDown()
        opened.close()
    }

    /// Writes SQLite's own log into `log` (event `sqlite`): corruption and a WAL recovered at start-up as errors (the
    /// previous run ended without a checkpoint; the recovery is all that survived of it), routine refusals at debug.
    /// Before the store opens: SQLite takes its log only before the process's first connection.
    static func forwardSQLiteLog(to log: Logger) {
        let forwarded = SQLiteLog.forward { message in
            let text = "SQLite (code \(message.resultCode)): \(message.text)"
            switch message.severity {
            case .error: log.error(text, event: "sqlite")
            case .warning: log.warning(text, event: "sqlite")
            case .debug: log.debug(text, event: "sqlite")
            }
        }
        if !forwarded { log.debug("SQLite's log is not forwarded: a connection was opened before", event: "sqlite") }
    }
}
