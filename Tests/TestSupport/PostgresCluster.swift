import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for one test: `initdb` in a fresh temporary folder, the server on a free
/// loopback port (no Unix socket, trust authentication on 127.0.0.1 only), stopped and deleted by `destroy()`.
///
/// The server binaries come from `PASSKEYD_POSTGRES_BIN`, else from `pg_config --bindir`, else from the newest
/// `/usr/lib/postgresql/*/bin`; `make deps` installs Debian's `postgresql`. PostgreSQL refuses to run as root,
/// so as root the cluster belongs to the `postgres` system user and its programs run through `runuser`.
public final class PostgresCluster: Sendable {
    public let port: Int
    /// The superuser the tests connect as.
    public let user = "passkeyd"
    private let folder: String
    private let binaries: String
    private let databaseCount = Mutex(0)

    /// Creates the cluster and starts its server.
    public init() throws {
        binaries = try Self.binaryFolder()
        port = try LoopbackPort.free()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-postgres-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if getuid() == 0 {
            try Self.check(ChildProcess.run("/bin/chown", ["postgres:postgres", folder]), "chown")
        }
        try runServerProgram("initdb", ["-D", dataFolder, "-U", user, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"])
        try start()
    }

    deinit {
        destroy()
    }

    /// A libpq connection string for `database`.
    public func connectionString(database: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) user=\(user) dbname=\(database) connect_timeout=5"
    }

    /// Creates an empty database and returns its name.
    public func createDatabase() throws -> String {
        let name =
            "passkeyd_test_"
            + String(
                databaseCount.withLock { count in
                    count += 1
                    return count
                }
            )
        try psql("CREATE DATABASE \(name)")
        return name
    }

    /// Runs SQL as the superuser with psql; returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try ChildProcess.run(
            binaries + "/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", database, "-c", sql,
            ]
        )
        try Self.check(result, "psql")
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `database` as a plain SQL script (`pg_dump`, without owners or privileges, so that it loads into any cluster).
    public func dump(database: String) throws -> String {
        let result = try ChildProcess.run(
            binaries + "/pg_dump",
            ["--no-owner", "--no-privileges", "--no-comments", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", database]
        )
        try Self.check(result, "pg_dump")
        return String(decoding: result.output, as: UTF8.self)
    }

    /// Runs a whole SQL script (such as a `dump`) in `database` with psql, stopping at the first error.
    public func load(script: String, database: String) throws {
        let result = try ChildProcess.run(
            binaries + "/psql",
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", database, "-f", "-"],
            input: Data(script.utf8)
        )
        try Self.check(result, "psql")
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -p \(port) -c unix_socket_directories='' -c max_connections=200"
        try runServerProgram("pg_ctl", ["-D", dataFolder, "-l", folder + "/server.log", "-o", options, "-w", "-t", "30", "start"])
    }

    /// Stops the server at once (`-m immediate`: like a crash, no shutdown checkpoint) or cleanly (`fast`).
    public func stop(immediately: Bool = false) throws {
        try runServerProgram("pg_ctl", ["-D", dataFolder, "-m", immediately ? "immediate" : "fast", "-w", "-t", "30", "stop"])
    }

    /// Sends `signal` to the server and every process it started (SIGSTOP freezes the whole cluster: it accepts
    /// connections and answers nothing; SIGCONT thaws it).
    public func signalEveryProcess(_ signal: Int32) throws {
        let pidFile = try String(contentsOfFile: dataFolder + "/postmaster.pid", encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw PostgresClusterFailure("no postmaster pid in \(dataFolder)/postmaster.pid")
        }
        var processes = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { continue }
            // After "pid (comm) ": state, then the parent's pid (proc(5)).
            let fields = stat[afterName.upperBound...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { processes.append(pid) }
        }
        for pid in processes { kill(pid, signal) }
    }

    /// Stops the server when it runs and deletes the folder. Idempotent.
    public func destroy() {
        guard FileManager.default.fileExists(atPath: folder) else { return }
        if FileManager.default.fileExists(atPath: dataFolder + "/postmaster.pid") {
            try? stop(immediately: true)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The server's log, for failure messages.
    public var log: String { (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "" }

    private var dataFolder: String { folder + "/data" }

    private func runServerProgram(_ name: String, _ arguments: [String]) throws {
        let result =
            getuid() == 0
            ? try ChildProcess.spawnAndWait("/usr/sbin/runuser", ["-u", "postgres", "--", binaries + "/" + name] + arguments)
            : try ChildProcess.spawnAndWait(binaries + "/" + name, arguments)
        try Self.check(result, name)
    }

    private static func check(_ result: ChildProcess.Result, _ name: String) throws {
        guard result.status == 0 else {
            throw PostgresClusterFailure("\(name) exited with \(result.status): \(result.errorOutput)")
        }
    }

    private static func binaryFolder() throws -> String {
        var candidates: [String] = []
        if let folder = ProcessInfo.processInfo.environment["PASSKEYD_POSTGRES_BIN"] { candidates.append(folder) }
        if let result = try? ChildProcess.run("/usr/bin/env", ["pg_config", "--bindir"]), result.status == 0 {
            candidates.append(String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        candidates += versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }.map { "/usr/lib/postgresql/\($0)/bin" }
        guard let folder = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }) else {
            throw PostgresClusterFailure("no PostgreSQL server found (initdb); run `make deps`, which installs Debian's postgresql")
        }
        return folder
    }
}
