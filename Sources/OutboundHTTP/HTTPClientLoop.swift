import CryptoCore
import LibEvent
import Synchronization
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// The event loop of one `HTTPClient`, on its own thread: a libevent base with an evdns resolver, the requests
/// waiting for a connection and those in flight.
///
/// Other threads only hand requests over (`submit`, under `inbox`'s lock, then `event_active` on `wakeEvent`, which is
/// thread-safe once `evthread_use_pthreads` ran) and ask it to stop. Everything else, every libevent object
/// included, is touched only on the loop's thread; when the loop returns, that thread fails what is left and frees it all.
final class HTTPClientLoop: @unchecked Sendable {
    let base: EventBase
    let dns: DNSResolver
    let configuration: HTTPClientConfiguration
    /// The trust anchors of requests that bring none.
    let defaultTLS: TLSClientContext

    private struct Inbox {
        var submitted: [HTTPClientExchange] = []
        var isStopping = false
    }

    private let inbox = Mutex(Inbox())
    /// Requests submitted and not finished, for the overload check (and tests).
    let outstanding = Atomic<Int>(0)
    private var wakeEvent: Event?
    private var reapEvent: Event?
    private var thread = pthread_t()
    /// The loop thread's id, set by that thread before it runs anything.
    private let loopThread = Atomic<UInt>(0)

    // Loop-thread state.
    /// Every request taken from the inbox and not finished, by identity: they are retained here.
    private var registered: [ObjectIdentifier: HTTPClientExchange] = [:]
    /// Requests waiting for a connection, oldest first.
    private var waiting: [HTTPClientExchange] = []
    /// Requests holding a connection.
    private var connectionsInUse = 0
    /// The most connections held at once, readable from any thread (for tests).
    let mostConnectionsInUse = Atomic<Int>(0)
    /// Finished requests whose connection is freed on the next pass of the loop, outside libevent's callbacks.
    private var retired: [HTTPClientExchange] = []

    init(configuration: HTTPClientConfiguration) throws(HTTPClientError) {
        guard LibEventSetup.isReady else { throw HTTPClientError(.eventLoopFailed, "evthread_use_pthreads failed") }
        guard configuration.maximumConnections >= 1, configuration.maximumWaitingRequests >= 0 else {
            throw HTTPClientError(.configurationInvalid, "maximumConnections must be positive and maximumWaitingRequests not negative")
        }
        do {
            defaultTLS = try configuration.tls ?? TLSClientContext()
        } catch {
            throw HTTPClientError(.configurationInvalid, "the TLS client context: \(error)")
        }
        self.configuration = configuration
        guard let base = EventBase.make() else { throw HTTPClientError(.eventLoopFailed, "event_base_new failed") }
        // The system resolver configuration (/etc/resolv.conf, /etc/hosts); it keeps no descriptor open while idle.
        guard let dns = DNSResolver(base: base, extraHostsFile: configuration.extraHostsFile) else {
            base.free()
            throw HTTPClientError(.eventLoopFailed, "evdns_base_new failed")
        }
        self.base = base
        self.dns = dns
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = Event(
            base: base,
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<HTTPClientLoop>.fromOpaque(argument).takeUnretainedValue().takeSubmissions()
            },
            argument: context
        )
        reapEvent = Event(
            base: base,
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<HTTPClientLoop>.fromOpaque(argument).takeUnretainedValue().reap()
            },
            argument: context
        )
        do throws(HTTPClientError) {
            guard wakeEvent != nil, reapEvent != nil else { throw HTTPClientError(.eventLoopFailed, "event_new failed") }
            try start()
        } catch {
            freeEvents()
            dns.free(failingLookups: false)
            base.free()
            throw error
        }
    }

    /// Starts the thread; it holds the loop until the loop has shut down.
    private func start() throws(HTTPClientError) {
        switch NamedThread.start(named: "passkeyd-fetch", { [self] in run() }) {
        case .success(let thread): self.thread = thread
        case .failure(let failure): throw HTTPClientError(.eventLoopFailed, failure.reason)
        }
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        base.runUntilExit()
        shutDownOnLoopThread()
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrentThread: Bool {
        loopThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    // MARK: any thread

    /// Hands `exchange` to the loop; fails it at once when the client is stopping or too many requests wait.
    func submit(_ exchange: HTTPClientExchange) {
        let limit = configuration.maximumConnections + configuration.maximumWaitingRequests
        let (previous, _) = outstanding.add(1, ordering: .relaxed)
        guard previous < limit else {
            outstanding.subtract(1, ordering: .relaxed)
            exchange.complete(.failure(HTTPClientError(.overloaded, "\(limit) requests are already in flight or waiting")))
            return
        }
        // event_active under the lock: the loop thread frees the event only after it closed the inbox under it.
        let accepted = inbox.withLock { inbox in
            guard !inbox.isStopping else { return false }
            inbox.submitted.append(exchange)
            wakeEvent?.activate()
            return true
        }
        guard accepted else {
            outstanding.subtract(1, ordering: .relaxed)
            exchange.complete(.failure(HTTPClientError(.shutDown, "the HTTP client is shut down")))
            return
        }
    }

    /// Asks the loop to fail what is in flight, free everything and end; waits for that unless called on the loop
    /// thread itself. Idempotent.
    func stop() {
        let wasRunning = inbox.withLock { inbox in
            defer { inbox.isStopping = true }
            return !inbox.isStopping
        }
        if wasRunning {
            base.exitLoop()
        }
        if wasRunning && !isCurrentThread {
            pthread_join(thread, nil)
        } else if wasRunning {
            pthread_detach(thread)
        }
    }

    // MARK: loop thread

    private func takeSubmissions() {
        let submitted = inbox.withLock { inbox in
            defer { inbox.submitted.removeAll() }
            return inbox.submitted
        }
        for exchange in submitted {
            registered[ObjectIdentifier(exchange)] = exchange
            waiting.append(exchange)
            exchange.armDeadline()
        }
        startWaiting()
    }

    /// Starts waiting requests while connections are free.
    private func startWaiting() {
        while connectionsInUse < configuration.maximumConnections, !waiting.isEmpty {
            let exchange = waiting.removeFirst()
            connectionsInUse += 1
            if connectionsInUse > mostConnectionsInUse.load(ordering: .relaxed) {
                mostConnectionsInUse.store(connectionsInUse, ordering: .relaxed)
            }
            exchange.start()
        }
    }

    /// Called once by each exchange as it finishes: forgets it, frees its connection on the next pass, and lets a
    /// waiting request have the connection slot.
    func finished(_ exchange: HTTPClientExchange, heldConnection: Bool) {
        registered[ObjectIdentifier(exchange)] = nil
        if heldConnection {
            connectionsInUse -= 1
        } else {
            waiting.removeAll { $0 === exchange }
        }
        outstanding.subtract(1, ordering: .relaxed)
        retired.append(exchange)
        reapEvent?.activate()
        startWaiting()
    }

    private func reap() {
        while !retired.isEmpty {
            let batch = retired
            retired.removeAll()
            batch.forEach { $0.release() }
        }
    }

    /// After the loop returned: fails every request left, lets libevent run the callbacks that brings (cancelled name
    /// lookups), frees every connection and then the loop itself.
    private func shutDownOnLoopThread() {
        let submitted = inbox.withLock { inbox in
            defer { inbox.submitted.removeAll() }
            return inbox.submitted
        }
        for exchange in submitted {
            outstanding.subtract(1, ordering: .relaxed)
            exchange.complete(.failure(HTTPClientError(.shutDown, "the HTTP client was shut down")))
        }
        waiting.removeAll()
        for exchange in Array(registered.values) {
            exchange.fail(HTTPClientError(.shutDown, "the HTTP client was shut down"))
        }
        dns.free(failingLookups: true)
        base.runReadyCallbacks()
        reap()
        freeEvents()
        base.free()
    }

    private func freeEvents() {
        wakeEvent?.free()
        reapEvent?.free()
        wakeEvent = nil
        reapEvent = nil
    }
}
