import CryptoCore

#if canImport(Glibc)
import Glibc
#endif

/// Listeners, limits and timeouts of an `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
    /// The HTTPS listener as "host:port" ("127.0.0.1:8443", "[::1]:8443", ":8443" for all addresses);
    /// port 0 picks any free port.
    public var httpsAddress: String?
    /// An optional plain-HTTP listener, for deployments behind a TLS-terminating proxy.
    public var httpAddress: String?
    /// The TLS context; required when `httpsAddress` is set.
    public var tls: TLSServerContext?
    /// The number of event loops, each on its own thread.
    public var threads: Int
    /// The largest accepted request body in bytes; larger ones get a JSON 413.
    public var maximumBodySize: Int
    /// The largest accepted request line plus header section in bytes; larger ones get a JSON 400.
    public var maximumHeaderSize: Int
    /// Seconds a connection may stay silent while a request is expected or being read (also the keep-alive idle time).
    /// A whole request must also arrive within this time of the connection opening (and within the write and read
    /// timeouts of the previous answer), however steadily its bytes trickle in.
    public var readTimeoutSeconds: Int
    /// Seconds a response write may stall.
    public var writeTimeoutSeconds: Int
    /// Open connections above this number are closed right after they are accepted.
    public var maximumConnections: Int
    /// Receives start-up and bind messages only (never request data).
    public var log: @Sendable (String) -> Void

    /// Creates a configuration; every limit has a production default.
    public init(
        httpsAddress: String? = nil,
        httpAddress: String? = nil,
        tls: TLSServerContext? = nil,
        threads: Int = HTTPServerConfiguration.processorCount,
        maximumBodySize: Int = 65_536,
        maximumHeaderSize: Int = 16_384,
        readTimeoutSeconds: Int = 30,
        writeTimeoutSeconds: Int = 30,
        maximumConnections: Int = 10_000,
        log: @escaping @Sendable (String) -> Void = HTTPServerConfiguration.writeToStandardError
    ) {
        self.httpsAddress = httpsAddress
        self.httpAddress = httpAddress
        self.tls = tls
        self.threads = threads
        self.maximumBodySize = maximumBodySize
        self.maximumHeaderSize = maximumHeaderSize
        self.readTimeoutSeconds = readTimeoutSeconds
        self.writeTimeoutSeconds = writeTimeoutSeconds
        self.maximumConnections = maximumConnections
        self.log = log
    }

    /// The number of online processors (at least 1).
    public static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The default log: one line on standard error.
    public static func writeToStandardError(_ message: String) {
        let line = Array((message + "\n").utf8)
        line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
