import ConfigurationFile
import ConfigurationReading
import FederatedIdentity
import Foundation
import Observability
import OutboundHTTP
import RelyingPartyServer
import Storage
import StoragePostgres
import StorageSQLite

/// The store a configuration names (its SQLite file, or the shared PostgreSQL database) with where its secrets live:
/// what `serve` and the `apple` commands open alike.
struct ConfiguredStore {
    let store: any PasskeyStore
    let secrets: SecretSource
    let close: () -> Void
    /// PostgreSQL's pool waits (calls that waited for a connection, and those that gave up), nil on SQLite.
    let poolWaits: (@Sendable () -> (waits: Int, timeouts: Int))?

    /// `log` gets PostgreSQL's notices (event `postgres`), which libpq would otherwise print on standard error. A
    /// PostgreSQL schema step that breaks the previous release's nodes runs only `allowingIncompatibleMigration`.
    init(_ configuration: ServerConfiguration, log: Logger? = nil, allowingIncompatibleMigration: Bool = false) throws {
        if let connectionString = configuration.postgresConnectionString {
            let postgres = try PostgresStore(
                connectionString: connectionString,
                poolSize: configuration.postgresPoolSize ?? configuration.defaultPoolSize,
                transactionPooling: configuration.postgresTransactionPooling,
                notices: { notice in log.map { Self.write(notice, to: $0) } },
                allowingIncompatibleMigration: allowingIncompatibleMigration,
                listenConnectionString: configuration.postgresListenConnectionString
            )
            (store, secrets, close) = (postgres, .database(postgres), postgres.close)
            poolWaits = { postgres.poolWaits }
        } else {
            let sqlite = try SQLiteStore(path: configuration.databasePath)
            (store, secrets, close) = (sqlite, .files(directory: configuration.dataDirectory), sqlite.close)
            poolWaits = nil
        }
    }

    /// A notice as one log line: routine ones (`NOTICE`, `INFO`) at debug, `WARNING` as a warning, the `FATAL` of a
    /// closed connection (a restart, an administrator's command) as an error.
    static func write(_ notice: PostgresNotice, to log: Logger) {
        let text = "PostgreSQL \(notice.severity) \(notice.code): \(notice.message)"
        switch notice.severity {
        case "DEBUG", "LOG", "INFO", "NOTICE": log.debug(text, event: "postgres")
        case "WARNING": log.warning(text, event: "postgres")
        default: log.error(text, event: "postgres")
        }
    }

    /// The `.p8` key named by `apple.privateKey`, the refresh token key from the secrets, and Apple reached through
    /// `client`.
    func appleSetup(_ apple: AppleConfiguration, client: HTTPClient, log: Logger) throws -> AppleSetup {
        guard let data = FileManager.default.contents(atPath: apple.privateKeyPath), let pem = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(.unreadable, key: "apple.privateKey", "cannot read \(apple.privateKeyPath)")
        }
        return AppleSetup(
            service: HTTPClientAppleService(configuration: apple, client: client, log: log),
            privateKeyPEM: pem,
            refreshTokenKey: try secrets.secret(named: SecretSource.appleRefreshTokenKey)
        )
    }
}
