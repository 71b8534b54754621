import Foundation
import Storage
import StoragePostgres
import StorageSQLite

/// `passkeyd migrate --from-sqlite FILE --to-postgres CONNECTION [--secrets DIR]`: copies a single node's SQLite
/// database and its shared secrets into an empty PostgreSQL database, in one transaction, for moving to several
/// nodes. Run it with passkeyd stopped.
struct MigrateCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(
        usage: "passkeyd migrate --from-sqlite FILE --to-postgres CONNECTION [--secrets DIR]",
        options: ["--from-sqlite", "--to-postgres", "--secrets"]
    )

    func run() -> Int32 {
        let sqlitePath: String
        let connectionString: String
        let secretsOption: String?
        do {
            let line = try Self.syntax.parse(arguments)
            sqlitePath = try line.required("--from-sqlite")
            connectionString = try line.required("--to-postgres")
            secretsOption = line.value("--secrets")
        } catch {
            FileHandle.standardError.write(Data("passkeyd migrate: \(error)\n".utf8))
            return 2
        }
        guard FileManager.default.fileExists(atPath: sqlitePath) else { return fail("no SQLite database at \(sqlitePath)") }
        let secretsFolder = secretsOption ?? URL(fileURLWithPath: sqlitePath).deletingLastPathComponent().path
        do {
            var export = try SQLiteStore(path: sqlitePath).exportRecords()
            for name in SecretSource.names {
                guard let data = FileManager.default.contents(atPath: secretsFolder + "/" + name) else { continue }
                guard data.count == 32 else { return fail("\(secretsFolder)/\(name) is not a 32-byte secret") }
                export.sharedSecrets[name] = Array(data)
            }
            let target = try PostgresStore(connectionString: connectionString, poolSize: 1)
            defer { target.close() }
            try target.importRecords(export)
            print(
                """
                copied \(export.users.count) users, \(export.credentials.count) passkeys, \(export.sessions.count) sessions, \
                \(export.appleIdentities.count) Apple identities, \(export.appleNonces.count) Apple nonces, \
                \(export.appleRevocations.count) queued revocations, \(export.signingKeys.count) signing keys, \
                \(export.oauthGrants.count) OpenID grants with \(export.oauthRefreshTokens.count) refresh tokens and \
                \(export.sharedSecrets.count) secrets \
                (\(export.sharedSecrets.keys.sorted().joined(separator: ", "))) from \(sqlitePath)
                """
            )
            return 0
        } catch {
            return fail("\(error)")
        }
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd migrate: \(message)\n".utf8))
        return 1
    }
}
