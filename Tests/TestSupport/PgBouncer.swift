import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Debian's PgBouncer in transaction mode (`pool_mode = transaction`, as Supabase's and RDS Proxy's poolers work) in
/// front of a `PostgresCluster`, on a free loopback port: each transaction of a client may run on another server
/// connection, so a session-level lock, setting or named prepared statement breaks. The `options` startup parameter
/// is ignored, as deployments configure it, so that a session-mode client connects and meets those breaks. Few server connections
/// (`default_pool_size = \(serverConnections)`) so that clients share them. Stopped and deleted by `destroy()`. As root it runs as the
/// `postgres` system user (PgBouncer refuses root).
public final class PgBouncer: Sendable {
    public let port: Int
    private let folder: String
    private let cluster: PostgresCluster

    /// Starts PgBouncer in front of `cluster` with at most `serverConnections` connections to it per database, in
    /// `poolMode`, ignoring the startup parameters `ignoredStartupParameters` (PgBouncer refuses any other it does not
    /// know, `options` among them when not listed).
    public init(
        inFrontOf cluster: PostgresCluster,
        serverConnections: Int = 6,
        poolMode: String = "transaction",
        ignoredStartupParameters: String = "extra_float_digits,options"
    ) throws {
        self.cluster = cluster
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw PostgresClusterFailure("\(Self.executable) is missing; `make test-deps` installs Debian's pgbouncer")
        }
        port = try LoopbackPort.free()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-pgbouncer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let settings = """
            [databases]
            * = host=127.0.0.1 port=\(cluster.port)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(folder)/users.txt
            pool_mode = \(poolMode)
            default_pool_size = \(serverConnections)
            max_client_conn = 400
            server_reset_query =
            ignore_startup_parameters = \(ignoredStartupParameters)
            logfile = \(folder)/pgbouncer.log
            pidfile = \(folder)/pgbouncer.pid
            """
        try Data(settings.utf8).write(to: URL(fileURLWithPath: folder + "/pgbouncer.ini"))
        try Data("\"\(cluster.user)\" \"\"\n".utf8).write(to: URL(fileURLWithPath: folder + "/users.txt"))
        if getuid() == 0 {
            _ = try ChildProcess.run("/bin/chown", ["-R", "postgres:postgres", folder])
        }
        let start =
            getuid() == 0
            ? try ChildProcess.spawnAndWait("/usr/sbin/runuser", ["-u", "postgres", "--", Self.executable, "-d", folder + "/pgbouncer.ini"])
            : try ChildProcess.spawnAndWait(Self.executable, ["-d", folder + "/pgbouncer.ini"])
        guard start.status == 0 else { throw PostgresClusterFailure("pgbouncer exited with \(start.status): \(start.errorOutput) \(log)") }
        try waitUntilListening()
    }

    deinit {
        destroy()
    }

    /// A libpq connection string for `database`, through the pooler.
    public func connectionString(database: String) -> String {
        "host=127.0.0.1 port=\(port) user=\(cluster.user) dbname=\(database) connect_timeout=5"
    }

    /// PgBouncer's log, for failure messages.
    public var log: String { (try? String(contentsOfFile: folder + "/pgbouncer.log", encoding: .utf8)) ?? "" }

    /// The daemon's process ID from its pid file; nil once destroyed.
    public var processID: pid_t? {
        let pidFile = try? String(contentsOfFile: folder + "/pgbouncer.pid", encoding: .utf8)
        return pidFile.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Stops PgBouncer (SIGTERM to the pid in its pid file) and deletes the folder. Idempotent.
    public func destroy() {
        guard FileManager.default.fileExists(atPath: folder) else { return }
        if let pid = processID {
            kill(pid, SIGTERM)
            for _ in 0..<50 where Self.isRunning(pid) { usleep(20_000) }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static let executable = "/usr/sbin/pgbouncer"

    /// Whether process `pid` exists and has not exited: a daemon's parent is the machine's init, which may leave it a
    /// zombie for a while (on this project's VMs it does).
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return true }
        return state != "Z"
    }

    private func waitUntilListening() throws {
        for _ in 0..<100 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(descriptor)
            // The daemon may listen before it writes its pid file, without which `destroy()` could not stop it.
            if connected, processID != nil { return }
            usleep(50_000)
        }
        throw PostgresClusterFailure("pgbouncer did not listen on \(port) with its pid file written: \(log)")
    }
}
