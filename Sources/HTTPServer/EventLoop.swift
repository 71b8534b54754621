import CryptoCore
import LibEvent
import Synchronization
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// One libevent `event_base` with its listeners, run on its own thread.
///
/// `@unchecked Sendable`: while the thread runs, only that thread touches the base and the listeners;
/// other threads only call `requestStop` (`event_base_loopexit`, thread-safe once
/// `evthread_use_pthreads` ran) and, after `join`, `close`.
final class EventLoop: @unchecked Sendable {
    /// The event base.
    let base: EventBase
    /// Shared by all loops of a server, for the connection caps.
    let connections: ConnectionCounter
    /// Shared by all loops of a server: reports of what floods cause, a few lines at most.
    let reports: ThrottledLog
    /// Shared by all loops of a server: the threads that run handlers whose answer may wait.
    let workers: WorkerPool
    /// Shared by all loops of a server: the client addresses with recent refusals, with a suspect lane.
    let suspects: SuspectAddresses?
    /// The workers' finished responses, written out on this loop's thread.
    let mailbox: LoopMailbox
    /// This loop's connections with no request in progress, oldest idle first (of each address: `connectionsByAddress`).
    private let idleConnections = IdleConnections(.all)
    /// Connections whose request is still arriving (its first byte came, it is not whole yet), oldest request first:
    /// under a connection cap with none idle, the oldest of them makes way for a new connection.
    private let incompleteConnections = IdleConnections(.incomplete)
    /// The connections of each client address with one on this loop.
    private var connectionsByAddress: [PeerAddress: AddressConnections] = [:]
    /// The `Date` header cache of this loop.
    let date = HTTPDate()
    /// True while a listener writes a handler's response, so that output is not mistaken for a libevent error page.
    /// The watch of a connection the listener knows is off then anyway (`ConnectionState.queueingOwnAnswer`); this
    /// covers one it does not know.
    var isSendingOwnResponse = false
    /// Answers whose write began in the loop turn that queued them (`pk_bufferevent_write_now`), instead of after the
    /// next poll: what the tests read to see that the shim still finds libevent's write event.
    let answersWrittenAtOnce = Atomic<Int>(0)
    private var listeners: [EventLoopListener] = []
    private var thread: pthread_t?
    /// While draining: the timer that closes connections as they finish their requests.
    private var drainTimer: Event?

    /// Creates the base; `addListener` then attaches the sockets.
    ///
    /// With epoll, the base collects the changes to the watched events during a loop iteration and applies
    /// what is left of them before waiting (EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST): evhttp stops reading a
    /// connection while a request is handled and resumes once the response is written, which without it costs
    /// two `epoll_ctl` calls per request. libevent's caveat for this flag (two descriptors of one base sharing
    /// an open file description, as `dup` makes) does not apply: each base holds one duplicate of its own
    /// listening socket and the accepted sockets.
    init(connections: ConnectionCounter, reports: ThrottledLog, workers: WorkerPool, suspects: SuspectAddresses?) throws(HTTPServerError) {
        guard let base = EventBase.make(collectingChanges: true) else {
            throw HTTPServerError(.eventLoopFailed, "event_base_new failed")
        }
        do {
            mailbox = try LoopMailbox(base: base)
        } catch {
            base.free()
            throw error
        }
        self.base = base
        self.connections = connections
        self.reports = reports
        self.workers = workers
        self.suspects = suspects
    }

    /// Serves `socket` on this loop through a duplicate descriptor (evhttp closes the one it is given).
    func addListener(
        socket: ListeningSocket,
        tls: TLSContextSlot?,
        configuration: HTTPServerConfiguration,
        handler: any HTTPHandler
    ) throws(HTTPServerError) {
        let descriptor = dup(socket.descriptor)
        guard descriptor >= 0 else {
            throw HTTPServerError(.eventLoopFailed, "dup: \(String(cString: strerror(errno)))")
        }
        listeners.append(try EventLoopListener(loop: self, descriptor: descriptor, tls: tls, configuration: configuration, handler: handler))
    }

    /// Starts the loop's thread, which holds the loop while it runs.
    func start() throws(HTTPServerError) {
        let started = NamedThread.start(named: "passkeyd-loop") { [self] in
            pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
            base.run()
        }
        switch started {
        case .success(let thread): self.thread = thread
        case .failure(let failure): throw HTTPServerError(.eventLoopFailed, failure.reason)
        }
    }

    /// The loop whose thread calls, for the libevent callbacks that carry no argument of ours (a listener's error
    /// callback gets evhttp's); nil on any other thread.
    static var current: EventLoop? {
        pthread_getspecific(currentKey).map { Unmanaged<EventLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The thread-specific slot each loop thread puts its loop in (the loop outlives its thread: `join` comes first).
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// `connection`, admitted under `address`'s cap, joins that address's connections on this loop.
    func joined(_ address: PeerAddress) -> AddressConnections {
        let connections = connectionsByAddress[address] ?? AddressConnections(address)
        if connections.count == 0 { connectionsByAddress[address] = connections }
        connections.count += 1
        return connections
    }

    /// `connection` closed: it leaves every list, and the address's entry goes with its last connection.
    func left(_ connection: ConnectionState, address: AddressConnections) {
        becameBusy(connection, address: address)
        requestEnded(connection, address: address)
        address.count -= 1
        if address.count == 0 { connectionsByAddress[address.address] = nil }
    }

    /// `connection` has no request in progress.
    func becameIdle(_ connection: ConnectionState, address: AddressConnections) {
        idleConnections.append(connection)
        address.idle.append(connection)
    }

    /// `connection` received bytes, or closed.
    func becameBusy(_ connection: ConnectionState, address: AddressConnections) {
        idleConnections.remove(connection)
        address.idle.remove(connection)
    }

    /// The bytes of requests still arriving on this loop's connections (`HTTPServerConfiguration.maximumArrivingBytes`);
    /// counted only on a listener with that bound.
    var arrivingBytes = 0

    /// A request of `connection` started arriving (nothing when it is already listed: its first byte counts).
    func requestStarted(_ connection: ConnectionState, address: AddressConnections) {
        incompleteConnections.append(connection)
        address.incomplete.append(connection)
    }

    /// The request of `connection` is whole (handed to a worker), was answered, or the connection closed.
    func requestEnded(_ connection: ConnectionState, address: AddressConnections) {
        arrivingBytes -= connection.arrivingBytes
        connection.arrivingBytes = 0
        connection.isOverArrivingBound = false
        incompleteConnections.remove(connection)
        address.incomplete.remove(connection)
    }

    /// Closes this loop's connection (of `address` only, when given) whose incomplete request is the oldest: a
    /// trickling client's, first. Whether there was one.
    func closeOldestIncompleteConnection(of address: PeerAddress? = nil) -> Bool {
        guard let oldest = address.map({ connectionsByAddress[$0]?.incomplete.first }) ?? incompleteConnections.first else { return false }
        oldest.close()
        return true
    }

    /// Closes up to `limit` of this loop's idle connections, the oldest first (of `address` only, when given); how
    /// many it closed.
    @discardableResult
    func closeIdleConnections(upTo limit: Int, of address: PeerAddress? = nil) -> Int {
        var closed = 0
        while closed < limit, let oldest = address.map({ connectionsByAddress[$0]?.idle.first }) ?? idleConnections.first {
            oldest.close()
            closed += 1
        }
        return closed
    }

    /// The listener of this loop that accepts on the evconnlistener `listener`.
    func listener(accepting listener: ConnectionListener) -> EventLoopListener? {
        listeners.first { $0.acceptingListener == listener }
    }

    /// Asks the loop to return; callable from any thread, even before the loop started running
    /// (unlike `event_base_loopbreak`, the exit request is an event that a starting loop still sees).
    func requestStop() {
        base.exitLoop()
    }

    /// A draining stop, callable from any thread: the loop stops accepting, closes each connection as soon as it has no
    /// request in progress (its answer written out), and returns once none is left, or after `seconds` at the latest.
    func requestDrain(within seconds: Double) {
        let scheduled = base.once(
            after: timeval(tv_sec: 0, tv_usec: 0),
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<EventLoop>.fromOpaque(argument).takeUnretainedValue().beginDrain()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        let whole = max(0, seconds)
        let deadline = timeval(tv_sec: Int(whole), tv_usec: Int((whole - whole.rounded(.down)) * 1_000_000))
        base.exitLoop(after: scheduled ? deadline : nil)
    }

    /// How often a draining loop looks for connections that finished their requests.
    private static let drainInterval = timeval(tv_sec: 0, tv_usec: 20_000)

    private func beginDrain() {
        listeners.forEach { $0.stopAccepting() }
        drainTimer = Event(
            base: base,
            kinds: .persist,
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<EventLoop>.fromOpaque(argument).takeUnretainedValue().drainStep()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        drainTimer?.add(timeout: Self.drainInterval)
        drainStep()
    }

    private func drainStep() {
        closeIdleConnections(upTo: Int.max)
        if listeners.allSatisfy({ $0.connectionStates.isEmpty }) { base.exitLoop() }
    }

    /// Waits for the loop's thread to end (no-op when it never started).
    func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }

    /// Frees the listeners (closing their connections and sockets), then the base. Call after `join`.
    func close() {
        if let drainTimer {
            drainTimer.free()
            self.drainTimer = nil
        }
        mailbox.close()
        for listener in listeners {
            listener.shutDown()
        }
        listeners.removeAll()
        base.free()
    }
}
