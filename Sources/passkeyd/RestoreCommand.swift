import ConfigurationFile
import CryptoCore
import Foundation
import Observability
import RelyingPartyServer
import Storage
import StoragePostgres
import StorageSQLite

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd restore SRC [--config FILE] [--replace]`: puts a `passkeyd backup` folder back into the configured data
/// folder of a stopped SQLite node. It refuses while a server holds the folder (`DataFolderLock`), a manifest it cannot
/// read, a file whose size or SHA-256 differs, a schema newer than this build's (an older one is migrated), and a data
/// folder that holds a database unless `--replace` (which moves the old files into `before-restore-<time>/`). Then it
/// ends the grants the backup holds (`RestoredStore`), and holds the folder one challenge lifetime from its start, so
/// that no sign-in challenge issued before the restore can be spent again.
struct RestoreCommand {
    let arguments: [String]
    let environment: [String: String]

    static let syntax = CommandLineSyntax(
        usage: "passkeyd restore SRC [--config FILE] [--replace]",
        options: ["--config"],
        switches: ["--replace"],
        maximumPositionals: 1
    )
    static let postgresSyntax = CommandLineSyntax(
        usage: "passkeyd restore --postgres-restored [--config FILE]",
        options: ["--config"],
        switches: ["--postgres-restored"]
    )

    /// Why a restore stops: what to tell the operator.
    private struct Refusal: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    func run() -> Int32 {
        let started = Date()
        let configuration: ServerConfiguration
        let source: String?
        let replace: Bool
        do {
            let onPostgres = arguments.contains("--postgres-restored")
            let syntax = onPostgres ? Self.postgresSyntax : Self.syntax
            let line = try syntax.parse(arguments)
            source = line.positionals.first
            guard onPostgres || source != nil else { throw CommandLineError(.missingOption, "SRC is required", usage: syntax.usage) }
            replace = line.isSet("--replace")
            configuration = try BackupCommand.configuration(line, environment: environment, usage: syntax.usage)
        } catch {
            return fail("\(error)", status: 2)
        }
        do {
            guard let source else {
                try Self.endGrantsOnPostgres(configuration, started: started)
                return 0
            }
            let (manifest, contents) = try Self.verifiedBackup(source)
            guard configuration.postgresConnectionString == nil else {
                throw Refusal(
                    "the configuration names PostgreSQL: restore its pg_dump with pg_restore, then run restore --postgres-restored (docs/operate/backups.md)"
                )
            }
            try DataFolderPermissions.createFolder(configuration.dataDirectory)
            guard let lock = try DataFolderLock(folder: configuration.dataDirectory, mode: .exclusive) else {
                throw Refusal("a server (passkeyd serve) holds the data folder \(configuration.dataDirectory): stop it first")
            }
            try withExtendedLifetime(lock) {
                try Self.setAside(configuration, replace: replace, at: started)
                for (name, content) in contents {
                    let path = name == "passkeyd.sqlite" ? configuration.databasePath : configuration.dataDirectory + "/" + name
                    try PrivateFile.replace(path, content)
                }
                try PrivateFile.syncFolder(configuration.dataDirectory)
                let store = try SQLiteStore(path: configuration.databasePath)
                defer { store.close() }
                let ended = try RestoredStore.endGrants(store, now: Date(), random: SystemRandom())
                RestoreCommand.say(
                    """
                    restored the backup of \(RFC3339Timestamp.seconds(manifest.createdAt)) (release \(manifest.release), schema version \
                    \(manifest.schemaVersion ?? 0), now \(SQLiteStore.latestSchemaVersion)) into \(configuration.dataDirectory); \
                    \(Self.describe(ended))
                    """
                )
                Self.hold(configuration, started: started, what: "the data folder")
            }
            return 0
        } catch let refusal as Refusal {
            return fail(refusal.message)
        } catch let error as CocoaError {
            return fail(error.localizedDescription)
        } catch {
            return fail("\(error)")
        }
    }

    /// How long each statement of `--postgres-restored` may take, and its transaction apart from the time per session.
    static let postgresStatementDeadline = Duration.seconds(600)

    /// After `pg_restore`, before any node starts: ends the grants of the restored database (migrating it first, as a
    /// node's start would) and waits out the challenges, as a SQLite restore does.
    private static func endGrantsOnPostgres(_ configuration: ServerConfiguration, started: Date) throws {
        guard let connectionString = configuration.postgresConnectionString else {
            throw Refusal("--postgres-restored needs a configuration that names PostgreSQL (database.postgres)")
        }
        // One transaction ends every session of the restored database: not a request's 5 s, but 600 s for each of its
        // statements (the delete of every session), and 600 s plus 50 ms for each live session in all (an event each).
        let store = try PostgresStore(
            connectionString: connectionString,
            poolSize: 1,
            replyDeadline: Self.postgresStatementDeadline,
            callTimeout: Self.postgresStatementDeadline
        )
        defer { store.close() }
        let ended = try RestoredStore.endGrants(store, now: Date(), random: SystemRandom())
        RestoreCommand.say("on the restored PostgreSQL database: \(describe(ended))")
        hold(configuration, started: started, what: "this command")
    }

    private static func describe(_ ended: RestoreRevocations) -> String {
        """
        ended \(ended.sessions) sessions, \(ended.oauthGrants) OpenID grants, \(ended.enrollmentLinks) enrollment links and \
        \(ended.challenges) challenges the backup held
        """
    }

    /// A sealed sign-in challenge is not stored until it is spent: one issued before the restore and spent after the
    /// backup would be accepted again until it expires. Waits one challenge lifetime from `started`, holding `what`.
    private static func hold(_ configuration: ServerConfiguration, started: Date, what: String) {
        let holdUntil = started.addingTimeInterval(Double(configuration.challengeLifetimeSeconds))
        guard holdUntil > Date() else { return }
        RestoreCommand.say("holding \(what) until \(RFC3339Timestamp.seconds(holdUntil)), when every challenge issued before the restore has expired")
        Thread.sleep(until: holdUntil)
    }

    /// The manifest of the backup in `source` and each file's content, after checking every file against it and the
    /// schema version against this build's.
    private static func verifiedBackup(_ source: String) throws -> (BackupManifest, [(String, [UInt8])]) {
        guard let json = PrivateFile.read(source + "/manifest.json") else { throw Refusal("\(source)/manifest.json cannot be read") }
        guard let manifest = BackupManifest(json: json) else { throw Refusal("\(source)/manifest.json is not a passkeyd backup manifest") }
        guard manifest.driver == "sqlite", let schemaVersion = manifest.schemaVersion else {
            throw Refusal("\(source) is a PostgreSQL backup's manifest: restore the database's pg_dump with pg_restore (docs/operate/backups.md)")
        }
        guard schemaVersion <= SQLiteStore.latestSchemaVersion else {
            throw Refusal(
                "the backup's schema version \(schemaVersion) is newer than version \(SQLiteStore.latestSchemaVersion), the latest this build "
                    + "knows: restore it with release \(manifest.release) or newer"
            )
        }
        for required in ["passkeyd.sqlite", SecretSource.serverSecret] where manifest.file(named: required) == nil {
            throw Refusal("the backup holds no \(required)")
        }
        var contents: [(String, [UInt8])] = []
        for file in manifest.files {
            guard let content = PrivateFile.read(source + "/" + file.name) else { throw Refusal("\(source)/\(file.name) cannot be read") }
            guard file.matches(content) else { throw Refusal("\(source)/\(file.name) is not the file the manifest names (size or SHA-256 differs)") }
            contents.append((file.name, content))
        }
        // The checksum binds the file to the manifest, not the manifest's number to the file: read the file's own.
        let found = try SQLiteStore.schemaVersion(databaseAt: source + "/passkeyd.sqlite")
        guard found == schemaVersion else {
            throw Refusal("\(source)/passkeyd.sqlite has schema version \(found), the manifest says \(schemaVersion)")
        }
        return (manifest, contents)
    }

    /// Moves the database and the backed-up files the data folder holds into `before-restore-<unix time>/` with
    /// `replace`; refuses a folder that holds a database without it.
    private static func setAside(_ configuration: ServerConfiguration, replace: Bool, at time: Date) throws {
        let database = configuration.databasePath
        let present =
            ([database, database + "-wal", database + "-shm"] + BackupManifest.fileNames.dropFirst().map { configuration.dataDirectory + "/" + $0 })
            .filter { FileManager.default.fileExists(atPath: $0) }
        guard FileManager.default.fileExists(atPath: database) else { return }
        guard replace else {
            throw Refusal(
                "\(database) exists: move it away, or pass --replace to keep the current files in \(configuration.dataDirectory)/before-restore-<time>/"
            )
        }
        let aside = configuration.dataDirectory + "/before-restore-\(Int(time.timeIntervalSince1970))"
        guard mkdir(aside, 0o700) == 0 else { throw Refusal("cannot create \(aside)") }
        for path in present {
            let target = aside + "/" + (path as NSString).lastPathComponent
            guard rename(path, target) == 0 else { throw Refusal("cannot move \(path) to \(target)") }
        }
        RestoreCommand.say("moved the current database and secrets to \(aside)")
    }

    /// One line on standard output, written at once (not held in a buffer when the output is a file or a journal:
    /// the hold's line tells what the folder waits for while it waits).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd restore: \(message)\n".utf8))
        return status
    }
}
