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
    /// The TLS context for an HTTPS listener, nil for plain HTTP.
    private let tls: TLSServerContext?
    private let handler: any HTTPHandler
    private var http: OpaquePointer?
    /// The bookkeeping of each attached connection, by its bufferevent.
    var connectionStates: [OpaquePointer: ConnectionState] = [:]

    /// The methods evhttp lets through; others get a JSON 501.
    private static let allowedMethods = [
        EVHTTP_REQ_GET, EVHTTP_REQ_HEAD, EVHTTP_REQ_POST, EVHTTP_REQ_PUT, EVHTTP_REQ_PATCH, EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS,
    ]
    .reduce(UInt16(0)) { $0 | UInt16($1.rawValue) }

    /// Creates the evhttp on `loop` and starts accepting on `descriptor` (which it then owns and closes).
    init(
        loop: EventLoop,
        descriptor: Int32,
        tls: TLSServerContext?,
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
        guard evhttp_accept_socket_with_handle(http, descriptor) != nil else {
            shutDown()
            close(descriptor)
            throw HTTPServerError(.eventLoopFailed, "evhttp_accept_socket_with_handle failed")
        }
    }

    /// Frees the evhttp with its connections and its socket. Call before the event base is freed.
    func shutDown() {
        guard let http else { return }
        self.http = nil
        evhttp_free(http)
    }

    /// The bevcb: a TLS bufferevent (server mode, handshake on accept) or a plain one, with its bookkeeping.
    private func makeBufferEvent() -> OpaquePointer? {
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        var bufferEvent: OpaquePointer?
        var isRefused = false
        if let tls {
            if let session = tls.makeConnection() {
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
        let incoming = HTTPRequest(
            method: isHead ? "GET" : Self.methodName(command),
            path: Self.decodedPath(request),
            query: evhttp_request_get_evhttp_uri(request).flatMap(evhttp_uri_get_query).map { String(cString: $0) },
            headers: EvhttpMessage.headers(request),
            body: EvhttpMessage.body(request),
            remoteAddress: Self.peerAddress(request),
            isSecure: tls != nil
        )
        // RFC 9110 §5.5: a NUL byte (which libevent cut a header value at) makes the request invalid.
        let sentNUL =
            evhttp_request_get_connection(request).flatMap(evhttp_connection_get_bufferevent)
            .flatMap { connectionStates[$0] }?.hasReceivedNUL == true
        let framing = RequestFraming.Request(
            major: Int(request.pointee.major),
            minor: Int(request.pointee.minor),
            isGetOrHead: command == EVHTTP_REQ_GET || isHead,
            headers: incoming.headers,
            path: incoming.path
        )
        if let refusal = sentNUL ? "The request contains a NUL byte." : RequestFraming.refusal(framing) {
            send(ErrorResponse.badRequest(refusal), to: request, isHead: isHead)
            return
        }
        send(handler.handle(incoming), to: request, isHead: isHead)
    }

    private func send(_ response: HTTPResponse, to request: UnsafeMutablePointer<evhttp_request>, isHead: Bool) {
        let status = (100...999).contains(response.status) ? response.status : 500
        let allowsBody = HTTPResponse.statusAllowsBody(status)
        let headers = evhttp_request_get_output_headers(request)
        for (name, value) in response.headers where !HTTPHeaders.namesMatch(name, "Content-Length") {
            _ = evhttp_add_header(headers, name, value)
        }
        if allowsBody {
            _ = evhttp_add_header(headers, "Content-Length", String(response.body.count))
        }
        if !response.headers.contains("date") {
            _ = evhttp_add_header(headers, "Date", loop.date.now())
        }
        if allowsBody && !isHead && !response.body.isEmpty {
            evbuffer_add(evhttp_request_get_output_buffer(request), response.body, response.body.count)
        }
        // RFC 9112 §2.3: answer HTTP/1.1 (HTTP/1.0 to a 1.0 request), never the version text the client wrote.
        request.pointee.minor = request.pointee.major == 1 && request.pointee.minor == 0 ? 0 : 1
        request.pointee.major = 1
        let bufferEvent = tls == nil ? nil : evhttp_request_get_connection(request).flatMap(evhttp_connection_get_bufferevent)
        bufferEvent.map { bufferevent_incref($0) }
        loop.isSendingOwnResponse = true
        evhttp_send_reply(request, Int32(status), HTTPResponse.reasonPhrase(for: status), nil)
        loop.isSendingOwnResponse = false
        if let bufferEvent {
            Self.coalesce(bufferevent_get_output(bufferEvent))
            bufferevent_decref(bufferEvent)
        }
    }

    /// The largest response made contiguous before a TLS connection writes it: one TLS record's payload.
    private static let coalescedResponseLimit = 16_384

    /// Makes a small response one contiguous chunk. A TLS bufferevent calls `SSL_write` once per chunk of its output
    /// buffer, and evhttp leaves the status line and headers in one chunk and the body in another: two TLS records
    /// and two `write` calls per response (and two segments for the client to take in) instead of one. The write
    /// itself happens later, when the loop finds the socket writable, so the copy made here is all it takes.
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
