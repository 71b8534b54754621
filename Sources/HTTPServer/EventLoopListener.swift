import CLibEvent
import CryptoCore

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
    private var http: OpaquePointer?
    /// The buffer a whole response is handed to evhttp in (`sendWhole`); empty between responses.
    private var wholeResponse: OpaquePointer?
    /// The evconnlistener evhttp accepts with (freed with the evhttp).
    private(set) var acceptingListener: OpaquePointer?
    /// Turns accepting back on after a pause for a failed `accept`.
    private var resumeTimer: OpaquePointer?
    /// The bookkeeping of each attached connection, by its bufferevent.
    var connectionStates: [OpaquePointer: ConnectionState] = [:]

    /// How long accepting pauses after `accept` failed (`EMFILE`: no descriptor left), so that the loop does not spin
    /// on a listening socket that stays readable.
    private static let acceptPause = timeval(tv_sec: 0, tv_usec: 100_000)
    /// The most idle connections closed at once when `accept` fails, to give descriptors back.
    private static let idleConnectionsClosedOnAcceptFailure = 64

    /// The methods evhttp lets through; others get a JSON 501.
    private static let allowedMethods = [
        EVHTTP_REQ_GET, EVHTTP_REQ_HEAD, EVHTTP_REQ_POST, EVHTTP_REQ_PUT, EVHTTP_REQ_PATCH, EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS,
    ]
    .reduce(UInt16(0)) { $0 | UInt16($1.rawValue) }

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
        guard let http = evhttp_new(loop.base) else {
            close(descriptor)
            throw HTTPServerError(.eventLoopFailed, "evhttp_new failed")
        }
        self.http = http
        wholeResponse = evbuffer_new()
        evhttp_set_allowed_methods(http, Self.allowedMethods)
        evhttp_set_max_body_size(http, configuration.maximumBodySize)
        evhttp_set_max_headers_size(http, configuration.maximumHeaderSize)
        evhttp_set_default_content_type(http, nil)
        _ = evhttp_set_flags(http, Int32(EVHTTP_SERVER_LINGERING_CLOSE))
        var timeout = timeval(tv_sec: configuration.readTimeoutSeconds, tv_usec: 0)
        evhttp_set_timeout_tv(http, &timeout)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_bevcb(
            http,
            { _, argument in
                guard let argument else { return nil }
                return Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue().makeBufferEvent()
            },
            context
        )
        evhttp_set_gencb(
            http,
            { request, argument in
                guard let request, let argument else { return }
                Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue().respond(to: request)
            },
            context
        )
        guard let bound = evhttp_accept_socket_with_handle(http, descriptor), let accepting = evhttp_bound_socket_get_listener(bound) else {
            shutDown()
            close(descriptor)
            throw HTTPServerError(.eventLoopFailed, "evhttp_accept_socket_with_handle failed")
        }
        acceptingListener = accepting
        // Without an error callback libevent logs every failed accept and tries again at once, for as long as the
        // socket stays readable: with no descriptor left that spun at 1.5 cores and wrote 30 MB of log a second.
        evconnlistener_set_error_cb(accepting) { listener, _ in
            let error = errno
            guard let listener else { return }
            evconnlistener_disable(listener)
            EventLoop.current?.listener(accepting: listener)?.acceptFailed(error: error)
        }
        resumeTimer = event_new(
            loop.base,
            -1,
            0,
            { _, _, argument in
                guard let argument else { return }
                let listener = Unmanaged<EventLoopListener>.fromOpaque(argument).takeUnretainedValue()
                listener.acceptingListener.map { _ = evconnlistener_enable($0) }
            },
            context
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
        var pause = Self.acceptPause
        if let resumeTimer, event_add(resumeTimer, &pause) == 0 { return }
        acceptingListener.map { _ = evconnlistener_enable($0) }
    }

    /// Stops accepting new connections (a draining stop); those already accepted are served on.
    func stopAccepting() {
        if let resumeTimer { event_del(resumeTimer) }
        acceptingListener.map { _ = evconnlistener_disable($0) }
    }

    /// Frees the evhttp with its connections and its socket. Call before the event base is freed.
    func shutDown() {
        if let resumeTimer {
            event_free(resumeTimer)
            self.resumeTimer = nil
        }
        if let wholeResponse {
            evbuffer_free(wholeResponse)
            self.wholeResponse = nil
        }
        guard let http else { return }
        self.http = nil
        acceptingListener = nil
        evhttp_free(http)
    }

    /// Whether this is an HTTPS listener.
    var isSecure: Bool { tls != nil }

    /// The `Strict-Transport-Security` value of this listener's answers: HTTPS only.
    var strictTransportSecurity: String? {
        tls == nil ? nil : configuration.strictTransportSecurity
    }

    /// The bevcb: a TLS bufferevent (server mode, handshake on accept) or a plain one, with its bookkeeping.
    private func makeBufferEvent() -> OpaquePointer? {
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        var bufferEvent: OpaquePointer?
        var isRefused = false
        if let tls {
            if let session = tls.current.makeConnection() {
                bufferEvent = bufferevent_openssl_socket_new(loop.base, -1, session, BUFFEREVENT_SSL_ACCEPTING, options)
            }
            if let bufferEvent {
                bufferevent_openssl_set_allow_dirty_shutdown(bufferEvent, 1)
            } else {
                // Never let evhttp fall back to plaintext on the TLS port: hand it a socket that is closed on attach.
                isRefused = true
                bufferEvent = bufferevent_socket_new(loop.base, -1, options)
            }
        } else {
            bufferEvent = bufferevent_socket_new(loop.base, -1, options)
        }
        guard let bufferEvent else { return nil }
        ConnectionState(listener: self, bufferEvent: bufferEvent, isRefused: isRefused).register()
        return bufferEvent
    }

    /// The gencb: copies the request out, runs the handler, sends the response.
    private func respond(to request: UnsafeMutablePointer<evhttp_request>) {
        let command = evhttp_request_get_command(request)
        let isHead = command == EVHTTP_REQ_HEAD
        let connectionState = evhttp_request_get_connection(request).flatMap(evhttp_connection_get_bufferevent).flatMap { connectionStates[$0] }
        let incoming = HTTPRequest(
            method: isHead ? "GET" : Self.methodName(command),
            path: Self.decodedPath(request),
            query: evhttp_request_get_evhttp_uri(request).flatMap(evhttp_uri_get_query).map { String(cString: $0) },
            headers: EvhttpMessage.headers(request),
            body: EvhttpMessage.body(request),
            remoteAddress: connectionState?.proxiedClient ?? Self.peerAddress(request),
            isSecure: tls != nil
        )
        // RFC 9110 §5.5: a NUL byte (which libevent cut a header value at) makes the request invalid.
        let sentNUL = connectionState?.hasReceivedNUL == true
        let framing = RequestFraming.Request(
            major: Int(request.pointee.major),
            minor: Int(request.pointee.minor),
            isGetOrHead: command == EVHTTP_REQ_GET || isHead,
            headers: incoming.headers,
            path: incoming.path
        )
        if let refusal = sentNUL ? "The request contains a NUL byte." : RequestFraming.refusal(framing) {
            send(ErrorResponse.badRequest(refusal), to: request, isHead: isHead, connection: connectionState)
            return
        }
        if let response = handler.answerOnLoop(incoming) {
            send(response, to: request, isHead: isHead, connection: connectionState)
            return
        }
        guard let connectionState else {
            send(handler.handle(incoming), to: request, isHead: isHead, connection: nil)
            return
        }
        let pending = PendingRequest(request: request, isHead: isHead, listener: self, connection: connectionState)
        let handler = handler
        let mailbox = loop.mailbox
        let queued = loop.workers.submit {
            let response = handler.handle(incoming)
            mailbox.post { pending.listener.finish(pending, with: response) }
        }
        guard queued else {
            send(ErrorResponse.busy(), to: request, isHead: isHead, connection: connectionState)
            return
        }
        connectionState.awaitResponse(pending)
    }

    /// On the loop's thread, a worker's response: written out unless the connection closed meanwhile.
    func finish(_ pending: PendingRequest, with response: HTTPResponse) {
        guard !pending.isCancelled else { return }
        pending.connection.responseArrived()
        send(response, to: pending.request, isHead: pending.isHead, connection: pending.connection)
    }

    /// Writes `response` for `request` through evhttp; `connection` is the request's connection when it is known.
    private func send(_ response: HTTPResponse, to request: UnsafeMutablePointer<evhttp_request>, isHead: Bool, connection: ConnectionState?) {
        let status = (100...999).contains(response.status) ? response.status : 500
        let allowsBody = HTTPResponse.statusAllowsBody(status)
        if allowsBody && !isHead && Self.keepsConnectionAsIs(request, response), let wholeResponse {
            sendWhole(response, status: status, to: request, through: wholeResponse, connection: connection)
            return
        }
        let headers = evhttp_request_get_output_headers(request)
        for (name, value) in response.headers
        where !HTTPHeaders.namesMatch(name, "Content-Length") && ResponseSerializer.isFieldText(name) && ResponseSerializer.isFieldText(value) {
            Self.add(name, value, to: headers)
        }
        if allowsBody {
            Self.add("Content-Length", String(response.body.count), to: headers)
        }
        if !response.headers.contains("date") {
            Self.add("Date", loop.date.now(), to: headers)
        }
        if let strictTransportSecurity, !response.headers.contains("strict-transport-security") {
            Self.add("Strict-Transport-Security", strictTransportSecurity, to: headers)
        }
        if allowsBody && !isHead && !response.body.isEmpty {
            evbuffer_add(evhttp_request_get_output_buffer(request), response.body, response.body.count)
        }
        // RFC 9112 §2.3: answer HTTP/1.1 (HTTP/1.0 to a 1.0 request), never the version text the client wrote.
        request.pointee.minor = request.pointee.major == 1 && request.pointee.minor == 0 ? 0 : 1
        request.pointee.major = 1
        queueOwnAnswer(to: request, connection: connection) {
            evhttp_send_reply(request, Int32(status), HTTPResponse.reasonPhrase(for: status), nil)
        }
    }

    /// Runs `queue`, which hands one of passkeyd's answers to evhttp, with the connection's output watch off, then makes
    /// a TLS connection's small answer one chunk (`coalesce`) and starts writing it in this loop turn. The bufferevent
    /// is held meanwhile: evhttp may free the connection inside `queue`.
    private func queueOwnAnswer(to request: UnsafeMutablePointer<evhttp_request>, connection: ConnectionState?, _ queue: () -> Void) {
        let bufferEvent = evhttp_request_get_connection(request).flatMap(evhttp_connection_get_bufferevent)
        bufferEvent.map { bufferevent_incref($0) }
        loop.isSendingOwnResponse = true
        if let connection { connection.queueingOwnAnswer(queue) } else { queue() }
        loop.isSendingOwnResponse = false
        if let bufferEvent {
            let output = bufferevent_get_output(bufferEvent)
            if tls != nil { Self.coalesce(output) }
            // The write starts now instead of after the next poll finds the socket writable (`pk_bufferevent_write_now`).
            if let output, evbuffer_get_length(output) > 0, pk_bufferevent_write_now(bufferEvent) == 1 {
                loop.answersWrittenAtOnce.add(1, ordering: .relaxed)
            }
            bufferevent_decref(bufferEvent)
        }
    }

    /// Whether evhttp adds nothing to `response` and keeps the connection open after it: an HTTP/1.1 request (1.1 or
    /// above, answered as 1.1) that is not a proxy request (an absolute URI) and names no `Connection` option but
    /// `keep-alive`, and a response without `Connection`. evhttp answers the rest itself (`Connection: close`, a 1.0
    /// client's `keep-alive`), so they take the header list.
    private static func keepsConnectionAsIs(_ request: UnsafeMutablePointer<evhttp_request>, _ response: HTTPResponse) -> Bool {
        guard request.pointee.major == 1, request.pointee.minor >= 1, request.pointee.flags & EVHTTP_PROXY_REQUEST == 0 else {
            return false
        }
        if let option = evhttp_find_header(evhttp_request_get_input_headers(request), "Connection"), strcasecmp(option, "keep-alive") != 0 {
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
        to request: UnsafeMutablePointer<evhttp_request>,
        through buffer: OpaquePointer,
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
        var extent = iovec()  // libevent's evbuffer_iovec
        guard evbuffer_reserve_space(buffer, capacity, &extent, 1) == 1, let space = extent.iov_base else {
            queueOwnAnswer(to: request, connection: connection) { evhttp_send_error(request, 500, nil) }
            return
        }
        extent.iov_len = ResponseSerializer.write(
            status: status,
            headers: response.headers,
            body: response.body,
            date: date,
            strictTransportSecurity: strictTransportSecurity,
            into: UnsafeMutableBufferPointer(start: space.assumingMemoryBound(to: UInt8.self), count: capacity)
        )
        evbuffer_commit_space(buffer, &extent, 1)
        queueOwnAnswer(to: request, connection: connection) {
            evhttp_send_reply_chunk(request, buffer)
            evhttp_send_reply_end(request)
        }
        // Left behind if evhttp took nothing (its connection gone).
        _ = evbuffer_drain(buffer, evbuffer_get_length(buffer))
    }

    /// `evhttp_add_header` with the texts' own bytes (`withCString`): a String passed to a C parameter as it is gets
    /// copied into a new C-string array first, two allocations per header.
    private static func add(_ name: String, _ value: String, to headers: UnsafeMutablePointer<evkeyvalq>?) {
        _ = name.withCString { name in value.withCString { value in evhttp_add_header(headers, name, value) } }
    }

    /// The largest response made contiguous before a TLS connection writes it: one TLS record's payload.
    private static let coalescedResponseLimit = 16_384

    /// Makes a small response one contiguous chunk. A TLS bufferevent calls `SSL_write` once per chunk of its output
    /// buffer, and evhttp leaves the status line and headers in one chunk and the body in another: two TLS records
    /// and two `write` calls per response (and two segments for the client to take in) instead of one. It runs
    /// before the write starts (`queueOwnAnswer`), so the copy made here is all it takes.
    private static func coalesce(_ output: OpaquePointer?) {
        guard let output else { return }
        let length = evbuffer_get_length(output)
        guard length > 0, length <= coalescedResponseLimit else { return }
        _ = evbuffer_pullup(output, length)
    }

    private static func methodName(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: "UNKNOWN"
        }
    }

    /// The percent-decoded path ("+" stays "+"), "/" when there is none.
    private static func decodedPath(_ request: UnsafeMutablePointer<evhttp_request>) -> String {
        guard let uri = evhttp_request_get_evhttp_uri(request), let raw = evhttp_uri_get_path(uri), raw.pointee != 0 else {
            return "/"
        }
        // Without a "%" there is nothing to decode (with decode_plus 0, evhttp_uridecode changes "%XX" only).
        if strchr(raw, Int32(UInt8(ascii: "%"))) == nil { return String(cString: raw) }
        var length = 0
        guard let decoded = evhttp_uridecode(raw, 0, &length) else { return String(cString: raw) }
        defer { free(decoded) }
        return String(decoding: UnsafeRawBufferPointer(start: decoded, count: length), as: UTF8.self)
    }

    private static func peerAddress(_ request: UnsafeMutablePointer<evhttp_request>) -> String {
        guard let connection = evhttp_request_get_connection(request) else { return "" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { String(cString: $0) } ?? ""
    }
}
