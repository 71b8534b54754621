import CryptoCore
import LibEvent
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 over TLS (and optionally plain HTTP) on libevent's evhttp, with one event loop per thread.
///
/// Every loop has its own evhttp per listener, each accepting from its own non-blocking listening socket
/// on the shared port (SO_REUSEPORT, TCP_NODELAY set), so the kernel spreads connections over the loops. Requests are
/// copied out, checked for ambiguous framing (`RequestFraming`) and handed to the handler: on a worker thread when its
/// answer may wait, its response then written back on the loop thread, or synchronously on the loop thread when the
/// handler answers it from memory (`HTTPHandler`). Limits (body, header section, methods) and every error libevent detects are answered in JSON, never with
/// libevent's HTML pages. Connections are capped in all and per client address, idle ones making way for new ones, and
/// the cap fits the open-file limit, which start-up raises to the hard limit; a failed `accept` pauses the listener.
///
/// `@unchecked Sendable`: the loops are only started, stopped and freed under `lifecycle`'s lock.
public final class HTTPServer: @unchecked Sendable {
    /// The bound HTTPS port, if an HTTPS listener is configured.
    public let httpsPort: Int?
    /// The bound plain-HTTP port, if a plain listener is configured.
    public let httpPort: Int?

    private enum Lifecycle { case bound, running, stopped }

    private let loops: [EventLoop]
    private let sockets: [ListeningSocket]
    private let connections = ConnectionCounter()
    private let lifecycle = Mutex(Lifecycle.bound)
    private let configuration: HTTPServerConfiguration
    /// The TLS context of new HTTPS connections (`replaceTLSContext`).
    private let tls: TLSContextSlot?
    private let workers: WorkerPool
    /// The addresses with recent refusals, with a suspect lane.
    private let suspects: SuspectAddresses?

    /// Binds the listening sockets (so the ports are known) and prepares the event loops.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) throws(HTTPServerError) {
        guard LibEventSetup.isReady else {
            throw HTTPServerError(.eventLoopFailed, "evthread_use_pthreads failed")
        }
        guard configuration.httpsAddress != nil || configuration.httpAddress != nil else {
            throw HTTPServerError(.invalidConfiguration, "neither httpsAddress nor httpAddress is set")
        }
        guard configuration.httpsAddress == nil || configuration.tls != nil else {
            throw HTTPServerError(.invalidConfiguration, "httpsAddress needs a TLS context")
        }
        guard configuration.threads >= 1, configuration.maximumBodySize >= 0, configuration.maximumHeaderSize >= 1,
            configuration.readTimeoutSeconds >= 1, configuration.writeTimeoutSeconds >= 1, configuration.maximumConnections >= 1,
            configuration.maximumConnectionsPerAddress >= 1, configuration.reservedDescriptors >= 0, configuration.workers >= 1,
            configuration.maximumQueuedRequests >= 1, configuration.suspectLane.map(Self.isValid) ?? true
        else {
            throw HTTPServerError(.invalidConfiguration, "threads, limits and timeouts must be positive")
        }
        var configuration = configuration
        configuration.maximumConnections = try Self.connectionCap(configuration)
        self.configuration = configuration
        let tls = configuration.tls.map(TLSContextSlot.init)
        self.tls = tls
        let reports = ThrottledLog(interval: Self.reportInterval, log: configuration.log)

        let workers = try WorkerPool(
            threads: configuration.workers,
            maximumQueued: configuration.maximumQueuedRequests,
            lane: configuration.suspectLane
        )
        self.workers = workers
        let suspects = configuration.suspectLane.map { SuspectAddresses($0, now: ThrottledLog.now) }
        self.suspects = suspects
        var sockets: [ListeningSocket] = []
        var loops: [EventLoop] = []
        do throws(HTTPServerError) {
            let secureSockets = try configuration.httpsAddress.map { address throws(HTTPServerError) in
                try ListeningSocket.bindGroup(address, count: configuration.threads)
            }
            sockets += secureSockets ?? []
            let plainSockets = try configuration.httpAddress.map { address throws(HTTPServerError) in
                try ListeningSocket.bindGroup(address, count: configuration.threads)
            }
            sockets += plainSockets ?? []
            for index in 0..<configuration.threads {
                let loop = try EventLoop(connections: connections, reports: reports, workers: workers, suspects: suspects)
                loops.append(loop)
                if let secureSockets {
                    try loop.addListener(socket: secureSockets[index], tls: tls, configuration: configuration, handler: handler)
                }
                if let plainSockets {
                    try loop.addListener(socket: plainSockets[index], tls: nil, configuration: configuration, handler: handler)
                }
            }
            httpsPort = secureSockets?.first?.port
            httpPort = plainSockets?.first?.port
        } catch {
            workers.stop()
            loops.forEach { $0.close() }
            sockets.forEach { _ = close($0.descriptor) }
            throw error
        }
        self.sockets = sockets
        self.loops = loops
        if let httpsAddress = configuration.httpsAddress, let httpsPort {
            configuration.log("HTTPS listening on \(httpsAddress) (port \(httpsPort))")
        }
        if let httpAddress = configuration.httpAddress, let httpPort {
            configuration.log("plain HTTP listening on \(httpAddress) (port \(httpPort))")
        }
    }

    deinit {
        stop()
    }

    /// Whether the suspect lane's settings are in their ranges.
    private static func isValid(_ lane: SuspectLane) -> Bool {
        (1...64).contains(lane.workers) && (1...100_000).contains(lane.maximumQueued) && (1...1000).contains(lane.refusals)
            && (1...86_400).contains(lane.seconds) && (0...19).contains(lane.niceness)
            && (1000...10_000_000).contains(lane.maximumAddresses)
    }

    /// Seconds between two reports of one kind of flood (failed accepts, connections refused or closed at a cap).
    static let reportInterval = 10

    /// The connection cap in force: the configured one, lowered (with a warning) to what the open-file limit leaves
    /// after the reserved descriptors, once the soft limit has been raised to the hard one.
    private static func connectionCap(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) -> Int {
        let limit = DescriptorLimit.raiseToHardLimit()
        let available = limit == Int.max ? Int.max : limit - configuration.reservedDescriptors
        guard available >= 1 else {
            throw HTTPServerError(
                .invalidConfiguration,
                "the open-file limit (\(limit)) leaves no descriptor for connections after the \(configuration.reservedDescriptors) reserved; "
                    + "raise it (LimitNOFILE= in the systemd unit, ulimit -n)"
            )
        }
        guard configuration.maximumConnections > available else { return configuration.maximumConnections }
        configuration.log.warning(
            "at most \(available) connections instead of \(configuration.maximumConnections) (limits.maximumConnections): "
                + "the open-file limit is \(limit) and \(configuration.reservedDescriptors) descriptors are reserved; raise it "
                + "(LimitNOFILE= in the systemd unit, ulimit -n) to allow more",
            event: "connections"
        )
        return available
    }

    /// The number of connections currently open across all loops.
    var openConnectionCount: Int {
        connections.current
    }

    /// Answers whose write began in the loop turn that queued them, across all loops.
    var answersWrittenAtOnce: Int {
        loops.reduce(0) { $0 + $1.answersWrittenAtOnce.load(ordering: .relaxed) }
    }

    /// What the metrics report of the listeners: connections open now, TLS handshakes completed and failed so far,
    /// requests waiting for a worker now, and those refused `503 server_busy` so far because the queue was full.
    public var statistics: (openConnections: Int, tlsHandshakes: Int, tlsHandshakeFailures: Int, queuedRequests: Int, busyRefusals: Int) {
        let handshakes = connections.handshakes
        return (connections.current, handshakes.completed, handshakes.failed, workers.queuedCount, workers.refusedCount)
    }

    /// What the metrics report of the suspect lane (`HTTPServerConfiguration.suspectLane`): requests waiting for one of
    /// its threads now, requests sent to it so far, those answered `429 rate_limited` at once because its queue was full,
    /// and the addresses that are suspects now. Zeros without a lane.
    public var suspectLaneStatistics: (queued: Int, admitted: Int, shed: Int, suspects: Int) {
        let lane = workers.suspectStatistics
        return (lane.queued, lane.admitted, lane.shed, suspects?.suspectCount(now: ThrottledLog.now) ?? 0)
    }

    /// Runs the event loops, each on its own thread, and returns. Does nothing after `stop`.
    public func start() {
        lifecycle.withLock { state in
            guard state == .bound else { return }
            state = .running
            for loop in loops {
                do {
                    try loop.start()
                } catch {
                    configuration.log("\(error)")
                }
            }
            configuration.log("serving with \(loops.count) event loop(s)")
        }
    }

    /// Serves every HTTPS connection accepted from now on with `context` (a renewed certificate); connections already
    /// open keep theirs. Does nothing on a server without an HTTPS listener.
    public func replaceTLSContext(_ context: TLSServerContext) {
        tls?.replace(with: context)
    }

    /// Stops the loops, joins their threads, closes all connections and sockets. Idempotent; callable
    /// from any thread except a loop thread (so not from inside a handler).
    ///
    /// With `drainingWithin`, a graceful stop: the loops stop accepting at once, each open connection is closed as
    /// soon as it has no request in progress (requests being read or handled are answered first), and whatever is
    /// still open after that many seconds is closed.
    public func stop(drainingWithin seconds: Double? = nil) {
        lifecycle.withLock { state in
            guard state != .stopped else { return }
            let wasRunning = state == .running
            state = .stopped
            if let seconds, wasRunning {
                loops.forEach { $0.requestDrain(within: seconds) }
            } else {
                loops.forEach { $0.requestStop() }
            }
            loops.forEach { $0.join() }
            // Requests still waiting for a worker are dropped (none of them started); those running end (each wait is
            // bounded), and their answers, posted to loops that are gone, are dropped with the connections.
            workers.stop()
            loops.forEach { $0.close() }
            sockets.forEach { _ = close($0.descriptor) }
        }
    }
}
