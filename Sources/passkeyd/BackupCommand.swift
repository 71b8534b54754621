import ConfigurationFile
import Foundation
import RelyingPartyServer
import StorageSQLite

/// `passkeyd backup DEST [--config FILE]`: a consistent copy of the configured deployment's SQLite database (SQLite's
/// online backup API, while the server serves) with the secrets and the self-signed TLS pair of its data folder, in a
/// new folder DEST (0700; files 0600) with `manifest.json` (`BackupManifest`). On PostgreSQL the data and the secrets
/// are rows of the database, which `pg_dump` copies: DEST gets the manifest and the TLS pair, and the command says so.
struct BackupCommand {
    let arguments: [String]
    /// The process's environment (`PASSKEYD_DATA`, as `serve` takes it).
    let environment: [String: String]

    static let syntax = CommandLineSyntax(usage: "passkeyd backup DEST [--config FILE]", options: ["--config"], maximumPositionals: 1)

    func run() -> Int32 {
        let configuration: ServerConfiguration
        let destination: String
        do {
            let line = try Self.syntax.parse(arguments)
            guard let folder = line.positionals.first else { throw CommandLineError(.missingOption, "DEST is required", usage: Self.syntax.usage) }
            destination = folder
            configuration = try Self.configuration(line, environment: environment, usage: Self.syntax.usage)
        } catch {
            return fail("\(error)", status: 2)
        }
        do {
            try Self.createEmptyFolder(destination)
            let createdAt = Date()
            var files: [BackupManifest.File] = []
            var schemaVersion: Int?
            if configuration.postgresConnectionString == nil {
                let copy = destination + "/passkeyd.sqlite"
                schemaVersion = try SQLiteStore.backUp(databaseAt: configuration.databasePath, to: copy)
                guard let content = PrivateFile.read(copy) else { return fail("cannot read back \(copy)") }
                files.append(BackupManifest.File(name: "passkeyd.sqlite", content: content))
            }
            for name in BackupManifest.fileNames.dropFirst() {
                // On PostgreSQL the secrets are the database's; a data folder's files would be stale leftovers.
                if configuration.postgresConnectionString != nil, SecretSource.names.contains(name) { continue }
                guard let content = PrivateFile.read(configuration.dataDirectory + "/" + name) else { continue }
                try PrivateFile.create(destination + "/" + name, content)
                files.append(BackupManifest.File(name: name, content: content))
            }
            if configuration.postgresConnectionString == nil, !files.contains(where: { $0.name == SecretSource.serverSecret }) {
                return fail("\(configuration.dataDirectory)/\(SecretSource.serverSecret) is missing: a backup without it cannot be restored")
            }
            let manifest = BackupManifest(
                release: Version.number,
                driver: schemaVersion == nil ? "postgresql" : "sqlite",
                schemaVersion: schemaVersion,
                createdAt: createdAt,
                files: files
            )
            try PrivateFile.create(destination + "/manifest.json", manifest.json)
            try PrivateFile.syncFolder(destination)
            if let schemaVersion {
                print("backed up the SQLite database (schema version \(schemaVersion)) and \(files.count - 1) files to \(destination)")
            } else {
                print(
                    """
                    wrote \(destination)/manifest.json\(files.isEmpty ? "" : " and the TLS pair"). On PostgreSQL the accounts, the sessions and the \
                    secrets are rows of the database: back it up with pg_dump (docs/operate/backups.md), and keep the dump as secret \
                    as the secrets it holds. This folder alone restores nothing.
                    """
                )
            }
            return 0
        } catch let error as CocoaError {
            return fail(error.localizedDescription)
        } catch {
            return fail("\(error)")
        }
    }

    /// The configuration a command acting on a deployment's data folder runs with: the file's (or the embedded
    /// defaults) with `PASSKEYD_DATA` in force, as `serve` takes it.
    static func configuration(_ line: ParsedCommandLine, environment: [String: String], usage: String) throws -> ServerConfiguration {
        let overrides = try ServeOverrides(listen: nil, environment: environment, usage: usage)
        let file = try line.value("--config").map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
        return overrides.applied(to: file)
    }

    /// Creates `path` 0700, or takes an existing empty folder (its mode narrowed to 0700); refuses anything else, so
    /// that a backup never mixes with or overwrites another.
    private static func createEmptyFolder(_ path: String) throws {
        try DataFolderPermissions.createFolder(path)
        let entries = try FileManager.default.contentsOfDirectory(atPath: path)
        guard entries.isEmpty else {
            throw CocoaError(.fileWriteFileExists, userInfo: [NSLocalizedDescriptionKey: "\(path) is not empty: back up into a new folder"])
        }
        guard chmod(path, 0o700) == 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "cannot chmod \(path)"]) }
    }

    private func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd backup: \(message)\n".utf8))
        return status
    }
}
