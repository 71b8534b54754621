import CryptoCore
import Foundation
import Observability

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
    /// The threads that run handlers whose work may wait (`HTTPHandler.answerOnLoop` nil): the store, the network.
    public var workers: Int
    /// The most requests waiting for a worker; beyond it a request is answered `503 server_busy` with `Retry-After`.
    public var maximumQueuedRequests: Int
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
    /// The most connections open at once. A connection accepted beyond it takes the place of the connection idle the
    /// longest on its event loop (no request in progress), or is closed when there is none. The server lowers it,
    /// with a warning, to what the open-file limit leaves after `reservedDescriptors`.
    public var maximumConnections: Int
    /// The most connections one client address holds at once (an IPv6 client: its /64); more are closed as they are
    /// accepted. Behind a proxy every connection comes from the proxy's address.
    public var maximumConnectionsPerAddress: Int
    /// The most bytes of requests still arriving (headers and the body read so far) that one event loop holds at once;
    /// nil for no bound but `maximumConnections` × `maximumBodySize`. The connection whose bytes go over it is closed
    /// before its request is whole: a listener that takes large bodies (the admin API's imports) cannot be made to
    /// hold them for every connection a flood opens, whatever its requests would have been answered.
    public var maximumArrivingBytes: Int?
    /// Descriptors kept for everything but client connections: listening sockets, event loops, the store's files or
    /// connections, the outbound client, the log.
    public var reservedDescriptors: Int
    /// The address ranges of the load balancers whose connections start with a PROXY protocol header (version 1 or 2)
    /// naming the client; empty for none. The client a header names is the request's `remoteAddress` and is counted
    /// against `maximumConnectionsPerAddress`; a connection from such a range without a valid header is closed, and a
    /// connection from anywhere else is its own client.
    public var proxyProtocolFrom: [AddressRange] = []
    /// The worker pool's lower-priority lane for client addresses with recent refusals; nil for none (every request then
    /// waits in the one queue).
    public var suspectLane: SuspectLane? = SuspectLane()
    /// The client a request counts as for `suspectLane`: by default its peer (the client a PROXY protocol header named),
    /// an IPv6 client by its /64. Behind a proxy that names clients in `X-Forwarded-For`, set it to what the handler's
    /// rate limits count. At most 64 characters are kept.
    public var clientAddress: @Sendable (HTTPRequest) -> String = HTTPServerConfiguration.peerAddress
    /// Whether `clientAddress` is the very rule the handler counts clients by (its rate limits): the address resolved
    /// for the suspect lane is then handed to the handler as `HTTPRequest.clientAddress` instead of being resolved a
    /// second time. Off by default: a handler with a rule of its own resolves the client itself.
    public var sharesClientAddress = false
    /// The `Strict-Transport-Security` value sent with every HTTPS answer (RFC 6797), nil for none; never on plain HTTP.
    public var strictTransportSecurity: String?
    /// Receives start-up and bind messages, and rate-limited reports of accept failures and connections refused or
    /// closed at a cap (never request data or client addresses).
    public var log: Logger

    /// Creates a configuration; every limit has a production default.
    public init(
        httpsAddress: String? = nil,
        httpAddress: String? = nil,
        tls: TLSServerContext? = nil,
        threads: Int = HTTPServerConfiguration.processorCount,
        workers: Int = 4 * HTTPServerConfiguration.processorCount,
        maximumQueuedRequests: Int = 1024,
        maximumBodySize: Int = 65_536,
        maximumHeaderSize: Int = 16_384,
        readTimeoutSeconds: Int = 30,
        writeTimeoutSeconds: Int = 30,
        maximumConnections: Int = 10_000,
        maximumConnectionsPerAddress: Int = 256,
        reservedDescriptors: Int = 128,
        strictTransportSecurity: String? = "max-age=31536000",
        log: Logger = HTTPServerConfiguration.standardErrorLog
    ) {
        self.httpsAddress = httpsAddress
        self.httpAddress = httpAddress
        self.tls = tls
        self.threads = threads
        self.workers = workers
        self.maximumQueuedRequests = maximumQueuedRequests
        self.maximumBodySize = maximumBodySize
        self.maximumHeaderSize = maximumHeaderSize
        self.readTimeoutSeconds = readTimeoutSeconds
        self.writeTimeoutSeconds = writeTimeoutSeconds
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
        self.reservedDescriptors = reservedDescriptors
        self.strictTransportSecurity = strictTransportSecurity
        self.log = log
    }

    /// A request's peer as a key: an IPv4 address, or the /64 of an IPv6 one.
    public static func peerAddress(_ request: HTTPRequest) -> String {
        PeerAddress(literal: request.remoteAddress)?.description ?? String(request.remoteAddress.prefix(64))
    }

    /// The number of online processors (at least 1).
    public static var processorCount: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// The default log: text lines on standard error.
    public static var standardErrorLog: Logger {
        LogWriter(format: .text, node: LogWriter.hostName, now: { Date() }).logger(level: .info)
    }
}
