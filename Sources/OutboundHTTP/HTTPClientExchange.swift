import CryptoCore
import LibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One request of an `HTTPClient` from submission to reply, on libevent's own HTTP client: a name lookup through
/// evdns (unless the host is an address), an `evhttp_connection` over a TLS bufferevent (client mode, handshake on
/// connect) or a plain one, one request on it with `Connection: close`, then everything freed.
///
/// Two timers bound it: the connect timeout from the moment it gets a connection slot until evhttp writes the request
/// (name lookup, TCP and TLS done), and the deadline from submission to the complete reply.
///
/// `@unchecked Sendable`: made on the caller's thread, handed to the loop under the inbox lock, and from then on used
/// only on the loop thread. Its libevent callbacks get it unretained: the loop holds it until it is released.
final class HTTPClientExchange: @unchecked Sendable {
    private enum Phase {
        case waiting, resolving, connecting, exchanging, finished
    }

    private unowned let loop: HTTPClientLoop
    let request: HTTPClientRequest
    let target: HTTPClientTarget
    private let completion: @Sendable (Result<HTTPClientReply, HTTPClientError>) -> Void
    /// CLOCK_MONOTONIC at submission, in seconds.
    private let submittedAt: Double

    private var phase = Phase.waiting
    private var holdsConnectionSlot = false
    private var deadlineTimer: Event?
    private var connectTimer: Event?
    private var lookup: DNSResolver.Lookup?
    /// The other addresses the name resolved to, tried in turn when a connection cannot be made.
    private var untriedAddresses: [String] = []
    /// Connections given up for the next address, freed with the exchange.
    private var abandonedConnections: [EvhttpConnection] = []
    private var abandonedSessions: [TLSClientSession] = []
    private var session: TLSClientSession?
    private var bufferEvent: BufferEvent?
    private var connection: EvhttpConnection?
    private var outputWatch: EventBuffer.Watch?
    private var inputWatch: EventBuffer.Watch?
    /// Bytes of the reply received so far (after TLS), to tell a header section over the limit from a malformed one:
    /// libevent reports both as an invalid header.
    private var receivedBytes = 0
    /// The failure evhttp reported through the request's error callback, just before the done callback.
    private var reportedError: EvhttpRequest.Failure?

    init(
        loop: HTTPClientLoop,
        request: HTTPClientRequest,
        target: HTTPClientTarget,
        completion: @escaping @Sendable (Result<HTTPClientReply, HTTPClientError>) -> Void
    ) {
        self.loop = loop
        self.request = request
        self.target = target
        self.completion = completion
        submittedAt = Self.monotonicNow()
    }

    /// Calls the completion; used directly only for requests the loop never took.
    func complete(_ result: Result<HTTPClientReply, HTTPClientError>) {
        completion(result)
    }

    // MARK: timers

    /// Starts the deadline when the loop takes the request.
    func armDeadline() {
        let remaining = request.deadlineSeconds - (Self.monotonicNow() - submittedAt)
        guard remaining > 0 else {
            fail(
                HTTPClientError(.timeout, "\(target.origin): the deadline of \(request.deadlineSeconds) s passed before a connection was free")
            )
            return
        }
        deadlineTimer = makeTimer(seconds: remaining) { _, _, argument in
            guard let argument else { return }
            Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().deadlinePassed()
        }
    }

    private func deadlinePassed() {
        let stage =
            switch phase {
            case .waiting: "while waiting for a free connection"
            case .resolving: "while resolving the name"
            case .connecting: "while connecting"
            default: "before the reply was complete"
            }
        fail(HTTPClientError(.timeout, "\(target.origin): the deadline of \(request.deadlineSeconds) s passed \(stage)"))
    }

    private func connectTimeoutPassed() {
        guard phase == .resolving || phase == .connecting else { return }
        fail(HTTPClientError(.timeout, "\(target.origin): no connection within \(request.connectTimeoutSeconds) s"))
    }

    /// A one-shot timer on the loop calling `action` on this exchange, which outlives it (`release` frees it).
    private func makeTimer(seconds: Double, _ action: EventCallback) -> Event? {
        guard let timer = Event(base: loop.base, action, argument: Unmanaged.passUnretained(self).toOpaque()) else { return nil }
        timer.add(timeout: Self.timeval(seconds: seconds))
        return timer
    }

    // MARK: connecting

    /// Gets a connection slot: resolves the host unless it is an address, then connects.
    func start() {
        guard phase == .waiting else { return }
        holdsConnectionSlot = true
        connectTimer = makeTimer(seconds: request.connectTimeoutSeconds) { _, _, argument in
            guard let argument else { return }
            Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().connectTimeoutPassed()
        }
        if let address = target.literalAddress {
            connect(to: address)
            return
        }
        phase = .resolving
        let pending = loop.dns.resolve(
            target.host,
            { result, addresses, argument in
                guard let argument else { return }
                Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeRetainedValue().resolved(result: result, addresses: addresses)
            },
            argument: Unmanaged.passRetained(self).toOpaque()
        )
        if phase == .resolving {
            lookup = pending
        }
    }

    private func resolved(result: Int32, addresses: UnsafeMutablePointer<addrinfo>?) {
        lookup = nil
        defer { addresses.map { DNSResolver.free($0) } }
        guard phase == .resolving else { return }
        var found: [String] = []
        var next = result == 0 ? addresses : nil
        while let entry = next, found.count < 8 {
            if let address = Self.numericAddress(entry.pointee), !found.contains(address) {
                found.append(address)
            }
            next = entry.pointee.ai_next
        }
        guard !found.isEmpty else {
            let text = result == 0 ? "no address" : DNSResolver.errorText(result)
            fail(HTTPClientError(.resolveFailed, "\(target.origin): \(text)"))
            return
        }
        untriedAddresses = Array(found.dropFirst())
        connect(to: found[0])
    }

    /// Opens the connection to `address` and queues the request on it.
    private func connect(to address: String) {
        phase = .connecting
        if target.isSecure {
            let session: TLSClientSession
            do {
                session = try (request.tls ?? loop.defaultTLS).makeSession(serverName: target.host)
            } catch {
                fail(HTTPClientError(.tlsHandshakeFailed, "\(target.origin): \(error.reason)"))
                return
            }
            guard let bufferEvent = BufferEvent.tls(base: loop.base, session: session.connection, role: .connecting, deferringCallbacks: true) else {
                session.discard()
                fail(HTTPClientError(.connectFailed, "\(target.origin): bufferevent_openssl_socket_new failed"))
                return
            }
            self.session = session
            self.bufferEvent = bufferEvent
        } else {
            guard let bufferEvent = BufferEvent.plain(base: loop.base, deferringCallbacks: true) else {
                fail(HTTPClientError(.connectFailed, "\(target.origin): bufferevent_socket_new failed"))
                return
            }
            self.bufferEvent = bufferEvent
        }
        guard let bufferEvent,
            let connection = EvhttpConnection.client(
                base: loop.base,
                resolver: loop.dns,
                bufferEvent: bufferEvent,
                address: address,
                port: target.port
            )
        else {
            fail(HTTPClientError(.connectFailed, "\(target.origin): evhttp_connection_base_bufferevent_new failed"))
            return
        }
        self.connection = connection
        // evhttp's own inactivity timeout stays out of the way: the exchange's timers decide.
        connection.setClientLimits(
            maximumHeaderSize: request.maximumReplyHeaderSize,
            maximumBodySize: request.maximumReplyBodySize,
            inactivity: Self.timeval(seconds: request.deadlineSeconds + 5)
        )
        // evhttp writes the request into the output buffer once the connection (and TLS) is up.
        outputWatch = bufferEvent.output?.addWatch(
            { _, information, argument in
                guard let information, let argument, information.pointee.added > 0 else { return }
                Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().connected()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        inputWatch = bufferEvent.input?.addWatch(
            { _, information, argument in
                guard let information, let argument else { return }
                Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().receivedBytes += information.pointee.added
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        guard let outgoing = makeRequest() else {
            fail(HTTPClientError(.connectFailed, "\(target.origin): evhttp_request_new failed"))
            return
        }
        // On failure evhttp has either freed the request or still holds it on the connection, which frees it.
        if !connection.send(outgoing, method: Self.command(request.method), target: target.requestTarget), phase != .finished {
            fail(HTTPClientError(.connectFailed, "\(target.origin): the request could not be started"))
        }
    }

    private func makeRequest() -> EvhttpRequest? {
        guard
            let outgoing = EvhttpRequest.make(
                { reply, argument in
                    guard let argument else { return }
                    Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().done(reply.map(EvhttpRequest.init))
                },
                argument: Unmanaged.passUnretained(self).toOpaque()
            )
        else { return nil }
        outgoing.onError { error, argument in
            guard let argument else { return }
            Unmanaged<HTTPClientExchange>.fromOpaque(argument).takeUnretainedValue().reportedError = EvhttpRequest.Failure(error)
        }
        outgoing.addOutputHeader("Host", target.hostHeader)
        if !request.headers.contains("User-Agent") {
            outgoing.addOutputHeader("User-Agent", loop.configuration.userAgent)
        }
        for (name, value) in request.headers {
            outgoing.addOutputHeader(name, value)
        }
        if !request.body.isEmpty || [.post, .put, .patch].contains(request.method) {
            outgoing.addOutputHeader("Content-Length", String(request.body.count))
        }
        outgoing.addOutputHeader("Connection", "close")
        if !request.body.isEmpty {
            outgoing.outputBody?.append(request.body)
        }
        return outgoing
    }

    private func connected() {
        guard phase == .connecting else { return }
        phase = .exchanging
        connectTimer?.remove()
    }

    // MARK: the reply

    /// evhttp's done callback: a reply, or nil / a request without a status after a failure.
    private func done(_ reply: EvhttpRequest?) {
        let errorNumber = errno
        guard phase != .finished else { return }
        guard let reply, case let status = reply.responseCode, status != 0 else {
            let tlsFailure = session?.failure(openSSLErrors: collectOpenSSLErrors())
            if phase == .connecting, reportedError == nil, tlsFailure == nil, !untriedAddresses.isEmpty {
                abandonConnection()
                connect(to: untriedAddresses.removeFirst())
                return
            }
            fail(failure(errorNumber: errorNumber, tlsFailure: tlsFailure))
            return
        }
        var facts: TLSPeerFacts?
        if target.isSecure {
            // Fail closed: a TLS reply without a completed, verified handshake is not a reply.
            guard let peer = session?.peerFacts, peer.certificateVerified else {
                fail(HTTPClientError(.tlsHandshakeFailed, "\(target.origin): the reply arrived without a verified handshake"))
                return
            }
            facts = peer
        }
        finish(.success(HTTPClientReply(status: status, headers: reply.inputHeaders, body: reply.removeInputBody(), tls: facts)))
    }

    /// What failed, from evhttp's error, the TLS session's observations and the phase.
    private func failure(errorNumber: Int32, tlsFailure: TLSClientFailure?) -> HTTPClientError {
        let origin = target.origin
        switch reportedError {
        case .dataTooLong:
            // libevent also reports a broken chunked encoding this way.
            return HTTPClientError(.replyTooLarge, "\(origin): the reply's body is over \(request.maximumReplyBodySize) bytes")
        case .invalidHeader where receivedBytes > request.maximumReplyHeaderSize:
            return HTTPClientError(.replyTooLarge, "\(origin): the reply's header section is over \(request.maximumReplyHeaderSize) bytes")
        case .invalidHeader:
            return HTTPClientError(.replyMalformed, "\(origin): the reply's status line or headers are malformed")
        case .timeout:
            return HTTPClientError(.timeout, "\(origin): the connection was idle too long")
        default:
            break
        }
        if phase == .exchanging {
            return HTTPClientError(.connectionClosed, "\(origin): the connection closed before the reply was complete")
        }
        if let tlsFailure {
            let reason = "\(origin): \(tlsFailure.reason)"
            switch tlsFailure.check {
            case .certificateUntrusted:
                return HTTPClientError(.certificateUntrusted, "\(reason); trusted: \((request.tls ?? loop.defaultTLS).trustSource)")
            case .certificateExpired: return HTTPClientError(.certificateExpired, reason)
            case .certificateNotYetValid: return HTTPClientError(.certificateNotYetValid, reason)
            case .hostnameMismatch: return HTTPClientError(.hostnameMismatch, "\(reason); expected \(target.host)")
            case .certificateInvalid: return HTTPClientError(.certificateInvalid, reason)
            case .handshake: return HTTPClientError(.tlsHandshakeFailed, reason)
            }
        }
        // errno rarely survives libevent's deferred callbacks; it is named only when it plainly is the connect's.
        let knownErrors = [ECONNREFUSED, ECONNRESET, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL]
        let detail =
            knownErrors.contains(errorNumber)
            ? String(cString: strerror(errorNumber)) : "no connection (refused, unreachable, or closed by the server at once)"
        return HTTPClientError(.connectFailed, "\(origin): \(detail)\(target.isSecure ? ", before any TLS answer" : "")")
    }

    private func collectOpenSSLErrors() -> [UInt] {
        guard let bufferEvent, target.isSecure else { return [] }
        var errors: [UInt] = []
        while errors.count < 8, case let error = bufferEvent.nextTLSError(), error != 0 {
            errors.append(error)
        }
        return errors
    }

    /// Sets the failed connection aside (freed with the exchange: this runs inside evhttp's callback) for the next address.
    private func abandonConnection() {
        removeWatches()
        connection.map { abandonedConnections.append($0) }
        session.map { abandonedSessions.append($0) }
        connection = nil
        bufferEvent = nil
        session = nil
        reportedError = nil
        receivedBytes = 0
    }

    private func removeWatches() {
        if let bufferEvent {
            if let outputWatch { bufferEvent.output?.removeWatch(outputWatch) }
            if let inputWatch { bufferEvent.input?.removeWatch(inputWatch) }
        }
        outputWatch = nil
        inputWatch = nil
    }

    // MARK: the end

    /// Ends the request with a failure; safe in any phase, a second end is ignored.
    func fail(_ error: HTTPClientError) {
        finish(.failure(error))
    }

    private func finish(_ result: Result<HTTPClientReply, HTTPClientError>) {
        guard phase != .finished else { return }
        let wasResolving = phase == .resolving
        phase = .finished
        for timer in [deadlineTimer, connectTimer].compactMap({ $0 }) {
            timer.remove()
        }
        if wasResolving, let lookup {
            // The lookup's callback still runs (with EVUTIL_EAI_CANCEL) and releases its reference.
            self.lookup = nil
            lookup.cancel()
        }
        loop.finished(self, heldConnection: holdsConnectionSlot)
        completion(result)
    }

    /// Frees the connection (with its bufferevent, socket and `SSL`), the request evhttp may still hold, and the timers.
    /// Called by the loop outside libevent's callbacks, after `finish`.
    func release() {
        removeWatches()
        if let connection {
            connection.free()
        } else if let bufferEvent {
            bufferEvent.free()
        }
        abandonedConnections.forEach { $0.free() }
        abandonedConnections.removeAll()
        connection = nil
        bufferEvent = nil
        session = nil
        abandonedSessions.removeAll()
        for timer in [deadlineTimer, connectTimer].compactMap({ $0 }) {
            timer.free()
        }
        deadlineTimer = nil
        connectTimer = nil
    }

    // MARK: helpers

    private static func command(_ method: HTTPClientRequest.Method) -> EvhttpMethods {
        switch method {
        case .get: .get
        case .head: .head
        case .post: .post
        case .put: .put
        case .patch: .patch
        case .delete: .delete
        case .options: .options
        }
    }

    private static func numericAddress(_ address: addrinfo) -> String? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address.ai_addr, address.ai_addrlen, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func timeval(seconds: Double) -> Glibc.timeval {
        let whole = max(0, seconds.rounded(.down))
        return Glibc.timeval(tv_sec: Int(whole), tv_usec: Int((max(0, seconds) - whole) * 1e6))
    }
}
