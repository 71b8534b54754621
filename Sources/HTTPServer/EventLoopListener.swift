import CryptoCore
import HTTPFields
import LibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One evhttp instance on one event loop, accepting on its own duplicate of its own listening socket.
/// It makes each connection's bufferevent (TLS or plain), copies requests out, calls the handler and
/// writes the responses. Used only on its loop's thread (set-up and tear-down excepted).
final class EventLoopListener {
    /// The loop this listener runs on; it owns the listener.
    unowned let loop: EventLoop
    /// Limits and timeouts.
    let configuration: HTTPServerConfiguration
    /// The TLS context of an HTTPS listener's new connections, nil for plain HTTP.
    private let tls: TLSContextSlot?
    private let handler: any HTTPHandler
    private var http: Evhttp?
    /// The buffer a whole response is handed to evhttp in (`sendWhole`); empty between responses.
    private var wholeResponse: EventBuffer?
    /// The evconnlistener evhttp accepts with (freed with the evhttp).
    private(set) var acceptingListener: ConnectionListener?
    /// Turns accepting back on after a pause for a failed `accept`.
    private var resumeTimer: Event?
    /// The bookkeeping of each attached connection, by its bufferevent.
    var connectionStates: [BufferEvent: ConnectionState] = [:]

    /// How long accepting pauses after `accept` failed (`EMFILE`: no descriptor left), so that the loop does not spin
    /// on a listening socket that stays readable.
    private static let acceptPause = timeval(tv_sec: 0, tv_usec: 100_000)
    /// The most idle connections closed at once when `accept` fails, to give descriptors back.
    private static let idleConnectionsClosedOnAcceptFailure = 64

    /// The methods evhttp lets through; others get a JSON 501.
    private static let allowedMethods: EvhttpMethods = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Creates the evhttp on `loop` and starts accepting on `descriptor` (which it then owns and closes).
    init(
        loop: EventLoop,
        descriptor: Int32,
        tls: TLSContextSlot?,
        configuration: HTTPServerConfiguration,
        handler: any HTTPHandler
    ) throws(HTTPServerError) {
        self.loop = loop
        self.tls = tls
        self.configuration = configuration
        self.handler = handler
        guard
            let http = Evhttp(
                base: loop.base,
                methods: Self.allowedMethods,
                maximumBodySize: configuration.maximumBodySize,
                maximumHeaderSize: configuration.maximumHeaderSize,
                timeoutSeconds: configuration.readTimeoutSeconds
            )
        else {
            close(descriptor)
            throw HTTPServerError(.eventLoopFailed, "evhttp_new failed")
        }
        self.http = http
        wholeResponse = EventBuffer.make()
        let context = Unmanaged.passUnretained(self).toOpaque()
        http.setCallbacks(
            bufferEvents: { _, argument in
                guard let argument else { return nil }
                return Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue().makeBufferEvent()?.pointer
            },
            requests: { request, argument in
                guard let request, let argument else { return }
                Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue().respond(to: EvhttpRequest(request))
            },
            argument: context
        )
        guard let accepting = http.accept(on: descriptor) else {
            shutDown()
            close(descriptor)
            throw HTTPServerError(.eventLoopFailed, "evhttp_accept_socket_with_handle failed")
        }
        acceptingListener = accepting
        // Without an error callback libevent logs every failed accept and tries again at once, for as long as the
        // socket stays readable: with no descriptor left that spun at 1.5 cores and wrote 30 MB of log a second.
        accepting.onAcceptFailure { listener, _ in
            let error = errno
            guard let listener else { return }
            let accepting = ConnectionListener(listener)
            accepting.setAccepting(false)
            EventLoop.current?.listener(accepting: accepting)?.acceptFailed(error: error)
        }
        resumeTimer = Event(
            base: loop.base,
            { _, _, argument in
                guard let argument else { return }
                let listener = Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue()
                listener.acceptingListener?.setAccepting(true)
            },
            argument: context
        )
    }

    /// `accept` failed (its listener is disabled): give descriptors back by closing the oldest idle connections,
    /// report it (a few lines per flood), and accept again after a pause.
    private func acceptFailed(error: Int32) {
        let closed = loop.closeIdleConnections(upTo: Self.idleConnectionsClosedOnAcceptFailure)
        loop.reports.note(
            "accept",
            "accept failed: \(String(cString: strerror(error))) (\(loop.connections.current) connections open, open-file limit "
                + "\(DescriptorLimit.current)); closed \(closed) idle connections, accepting again in 100 ms",
            now: ThrottledLog.now
        )
        if let resumeTimer, resumeTimer.add(timeout: Self.acceptPause) { return }
        acceptingListener?.setAccepting(true)
    }

    /// Stops accepting new connections (a draining stop); those already accepted are served on.
    func stopAccepting() {
        resumeTimer?.remove()
        acceptingListener?.setAccepting(false)
    }

    /// Frees the evhttp with its connections and its socket. Call before the event base is freed.
    func shutDown() {
        if let resumeTimer {
            resumeTimer.free()
            self.resumeTimer = nil
        }
        if let wholeResponse {
            wholeResponse.free()
            self.wholeResponse = nil
        }
        guard let http else { return }
        self.http = nil
        acceptingListener = nil
        http.free()
    }

    /// Whether this is an HTTPS listener.
    var isSecure: Bool { tls != nil }

    /// The `Strict-Transport-Security` value of this listener's answers: HTTPS only.
    var strictTransportSecurity: String? {
        tls == nil ? nil : configuration.strictTransportSecurity
    }

    /// The bevcb: a TLS bufferevent (server mode, handshake on accept) or a plain one, with its bookkeeping.
    private func makeBufferEvent() -> BufferEvent? {
        var bufferEvent: BufferEvent?
        var isRefused = false
        if let tls {
            if let session = tls.current.makeConnection() {
                bufferEvent = BufferEvent.tls(base: loop.base, session: session, role: .accepting)
            }
            if let bufferEvent {
                bufferEvent.allowDirtyShutdown()
            } else {
                // Never let evhttp fall back to plaintext on the TLS port: hand it a socket that is closed on attach.
                isRefused = true
                bufferEvent = BufferEvent.plain(base: loop.base)
            }
        } else {
            bufferEvent = BufferEvent.plain(base: loop.base)
        }
        guard let bufferEvent else { return nil }
        ConnectionState(listener: self, bufferEvent: bufferEvent, isRefused: isRefused).register()
        return bufferEvent
    }

    /// The gencb: copies the request out, runs the handler, sends the response.
    private func respond(to request: EvhttpRequest) {
        let command = request.method
        let isHead = command == .head
        let connectionState = request.connection?.bufferEvent.flatMap { connectionStates[$0] }
        var incoming = HTTPRequest(
            method: isHead ? "GET" : Self.methodName(command),
            path: Self.decodedPath(request),
            query: request.query,
            headers: request.inputHeaders,
            body: request.removeInputBody(),
            remoteAddress: connectionState?.proxiedClient ?? Self.peerAddress(request),
            isSecure: tls != nil
        )
        // RFC 9110 §5.5: a NUL byte (which libevent cut a header value at) makes the request invalid.
        let sentNUL = connectionState?.hasReceivedNUL == true
        let version = request.version
        let framing = RequestFraming.Request(
            major: version.major,
            minor: version.minor,
            isGetOrHead: command == .get || isHead,
            headers: incoming.headers,
            path: incoming.path
        )
        if let refusal = sentNUL ? "The request contains a NUL byte." : RequestFraming.refusal(framing) {
            noteRefusal(of: incoming, status: 400)
            send(ErrorResponse.badRequest(refusal), to: request, isHead: isHead, connection: connectionState)
            return
        }
        if let response = handler.answerOnLoop(incoming) {
            noteRefusal(of: incoming, status: response.status)
            send(response, to: request, isHead: isHead, connection: connectionState)
            return
        }
        // The client as the suspect lane counts it, with a lane; resolved only here, for a request answered on the loop
        // only when it is refused (an answer from memory that rate-limits resolves its client itself: a refusal among
        // those is resolved twice, a success once, and a well-known file never).
        let client = suspectClient(of: incoming)
        if configuration.sharesClientAddress { incoming.clientAddress = client }
        guard let connectionState else {
            send(handler.handle(incoming), to: request, isHead: isHead, connection: nil)
            return
        }
        let pending = PendingRequest(request: request, isHead: isHead, listener: self, connection: connectionState)
        let handler = handler
        let mailbox = loop.mailbox
        let suspects = loop.suspects
        let lane: WorkerPool.Lane = client.map { suspects?.isSuspect($0, now: ThrottledLog.now) == true } == true ? .suspect : .clean
        let admission = loop.workers.submit(
            { [incoming] in
                let response = handler.handle(incoming)
                if let client, let suspects, SuspectLane.isRefusal(response.status) {
                    suspects.noteRefusal(client, now: ThrottledLog.now)
                }
                mailbox.post { pending.listener.finish(pending, with: response) }
            },
            lane: lane
        )
        switch admission {
        case .queued:
            connectionState.awaitResponse(pending)
        case .busy:
            send(ErrorResponse.busy(), to: request, isHead: isHead, connection: connectionState)
        case .shed:
            send(ErrorResponse.rateLimited(), to: request, isHead: isHead, connection: connectionState)
        }
    }

    /// The client of `request` as the suspect lane counts it, when there is a lane.
    private func suspectClient(of request: HTTPRequest) -> String? {
        loop.suspects.map { _ in String(configuration.clientAddress(request).prefix(64)) }
    }

    /// Counts an answer of `status` to `request` against its client when it is a refusal (with a suspect lane).
    private func noteRefusal(of request: HTTPRequest, status: Int) {
        guard let suspects = loop.suspects, SuspectLane.isRefusal(status), let client = suspectClient(of: request) else { return }
        suspects.noteRefusal(client, now: ThrottledLog.now)
    }

    /// On the loop's thread, a worker's response: written out unless the connection closed meanwhile.
    func finish(_ pending: PendingRequest, with response: HTTPResponse) {
        guard !pending.isCancelled else { return }
        pending.connection.responseArrived()
        send(response, to: pending.request, isHead: pending.isHead, connection: pending.connection)
    }

    /// Writes `response` for `request` through evhttp; `connection` is the request's connection when it is known.
    private func send(_ response: HTTPResponse, to request: EvhttpRequest, isHead: Bool, connection: ConnectionState?) {
        let status = (100...999).contains(response.status) ? response.status : 500
        let allowsBody = HTTPResponse.statusAllowsBody(status)
        if allowsBody && !isHead && Self.keepsConnectionAsIs(request, response), let wholeResponse {
            sendWhole(response, status: status, to: request, through: wholeResponse, connection: connection)
            return
        }
        for (name, value) in response.headers
        where !HTTPHeaders.namesMatch(name, "Content-Length") && ResponseSerializer.isFieldText(name) && ResponseSerializer.isFieldText(value) {
            request.addOutputHeader(name, value)
        }
        if allowsBody {
            request.addOutputHeader("Content-Length", String(response.body.count))
        }
        if !response.headers.contains("date") {
            request.addOutputHeader("Date", loop.date.now())
        }
        if let strictTransportSecurity, !response.headers.contains("strict-transport-security") {
            request.addOutputHeader("Strict-Transport-Security", strictTransportSecurity)
        }
        if allowsBody && !isHead && !response.body.isEmpty {
            request.outputBody?.append(response.body)
        }
        // RFC 9112 §2.3: answer HTTP/1.1 (HTTP/1.0 to a 1.0 request), never the version text the client wrote.
        let version = request.version
        request.version = (major: 1, minor: version.major == 1 && version.minor == 0 ? 0 : 1)
        queueOwnAnswer(to: request, connection: connection) {
            request.sendReply(status: status, reason: HTTPResponse.reasonPhrase(for: status))
        }
    }

    /// Runs `queue`, which hands one of passkeyd's answers to evhttp, with the connection's output watch off, then makes
    /// a TLS connection's small answer one chunk (`coalesce`) and starts writing it in this loop turn. The bufferevent
    /// is held meanwhile: evhttp may free the connection inside `queue`.
    private func queueOwnAnswer(to request: EvhttpRequest, connection: ConnectionState?, _ queue: () -> Void) {
        let bufferEvent = request.connection?.bufferEvent
        bufferEvent?.retain()
        loop.isSendingOwnResponse = true
        if let connection { connection.queueingOwnAnswer(queue) } else { queue() }
        loop.isSendingOwnResponse = false
        if let bufferEvent {
            let output = bufferEvent.output
            if tls != nil { Self.coalesce(output) }
            // The write starts now instead of after the next poll finds the socket writable (`pk_bufferevent_write_now`).
            if let output, output.count > 0, bufferEvent.writeNow() {
                loop.answersWrittenAtOnce.add(1, ordering: .relaxed)
            }
            bufferEvent.release()
        }
    }

    /// Whether evhttp adds nothing to `response` and keeps the connection open after it: an HTTP/1.1 request (1.1 or
    /// above, answered as 1.1) that is not a proxy request (an absolute URI) and names no `Connection` option but
    /// `keep-alive`, and a response without `Connection`. evhttp answers the rest itself (`Connection: close`, a 1.0
    /// client's `keep-alive`), so they take the header list.
    private static func keepsConnectionAsIs(_ request: EvhttpRequest, _ response: HTTPResponse) -> Bool {
        let version = request.version
        guard version.major == 1, version.minor >= 1, !request.isProxyRequest else {
            return false
        }
        if let option = request.inputHeader("Connection"), strcasecmp(option, "keep-alive") != 0 {
            return false
        }
        return !response.headers.contains("connection")
    }

    /// Writes `response` whole (`ResponseSerializer`) as the only chunk of a reply that is not chunked: evhttp moves
    /// `buffer`'s bytes to the connection, writes them and then finishes the request as it does after
    /// `evhttp_send_reply` (the next request of the connection is read, or the connection closed).
    private func sendWhole(
        _ response: HTTPResponse,
        status: Int,
        to request: EvhttpRequest,
        through buffer: EventBuffer,
        connection: ConnectionState?
    ) {
        let date = loop.date.now()
        let strictTransportSecurity = strictTransportSecurity
        let capacity = ResponseSerializer.capacity(
            status: status,
            headers: response.headers,
            body: response.body,
            date: date,
            strictTransportSecurity: strictTransportSecurity
        )
        // The answer is written straight into the buffer's own memory (one extent of at least `capacity`).
        let written = buffer.append(capacity: capacity) { space in
            ResponseSerializer.write(
                status: status,
                headers: response.headers,
                body: response.body,
                date: date,
                strictTransportSecurity: strictTransportSecurity,
                into: space
            )
        }
        guard written else {
            queueOwnAnswer(to: request, connection: connection) { request.sendError(status: 500) }
            return
        }
        queueOwnAnswer(to: request, connection: connection) { request.sendWhole(buffer) }
        // Left behind if evhttp took nothing (its connection gone).
        buffer.drain(buffer.count)
    }

    /// The largest response made contiguous before a TLS connection writes it: one TLS record's payload.
    private static let coalescedResponseLimit = 16_384

    /// Makes a small response one contiguous chunk. A TLS bufferevent calls `SSL_write` once per chunk of its output
    /// buffer, and evhttp leaves the status line and headers in one chunk and the body in another: two TLS records
    /// and two `write` calls per response (and two segments for the client to take in) instead of one. It runs
    /// before the write starts (`queueOwnAnswer`), so the copy made here is all it takes.
    private static func coalesce(_ output: EventBuffer?) {
        guard let output else { return }
        let length = output.count
        guard length > 0, length <= coalescedResponseLimit else { return }
        output.makeContiguous(length)
    }

    private static func methodName(_ command: EvhttpMethods) -> String {
        switch command {
        case .get: "GET"
        case .post: "POST"
        case .head: "HEAD"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .trace: "TRACE"
        case .connect: "CONNECT"
        case .patch: "PATCH"
        default: "UNKNOWN"
        }
    }

    /// The percent-decoded path ("+" stays "+"), "/" when there is none.
    private static func decodedPath(_ request: EvhttpRequest) -> String {
        guard let raw = request.rawPath, raw.pointee != 0 else {
            return "/"
        }
        // Without a "%" there is nothing to decode (with decode_plus 0, evhttp_uridecode changes "%XX" only).
        if strchr(raw, Int32(UInt8(ascii: "%"))) == nil { return String(cString: raw) }
        return EvhttpRequest.percentDecoded(raw) ?? String(cString: raw)
    }

    private static func peerAddress(_ request: EvhttpRequest) -> String {
        request.connection?.peerAddress ?? ""
    }
}
