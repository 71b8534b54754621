import CLibEvent
import HTTPFields

#if canImport(Glibc)
import Glibc
#endif

/// The C callback of a request: evhttp's server calls it with each request, its client with the reply (or nil).
package typealias EvhttpRequestCallback = @convention(c) (UnsafeMutablePointer<evhttp_request>?, UnsafeMutableRawPointer?) -> Void

/// One libevent `evhttp_request`: a request the server received and answers, or one the client sends and the reply it
/// gets. Its input (headers, body) is what arrived; its output what goes out. Used on its loop's thread.
package struct EvhttpRequest {
    @usableFromInline package let pointer: UnsafeMutablePointer<evhttp_request>

    @inlinable package init(_ pointer: UnsafeMutablePointer<evhttp_request>) {
        self.pointer = pointer
    }

    /// A request for the client, whose reply (or nil, after a failure) goes to `callback` with `argument`.
    package static func make(_ callback: EvhttpRequestCallback, argument: UnsafeMutableRawPointer?) -> EvhttpRequest? {
        evhttp_request_new(callback, argument).map(EvhttpRequest.init)
    }

    /// Every input header field, in order, repeated ones included.
    @inlinable package var inputHeaders: HTTPHeaders {
        var headers = HTTPHeaders()
        var field = evhttp_request_get_input_headers(pointer)?.pointee.tqh_first
        while let current = field {
            headers.add(String(cString: current.pointee.key), String(cString: current.pointee.value))
            field = current.pointee.next.tqe_next
        }
        return headers
    }

    /// The input body, drained from libevent's buffer.
    @inlinable package func removeInputBody() -> [UInt8] {
        evhttp_request_get_input_buffer(pointer).map { EventBuffer($0).removeAll() } ?? []
    }

    /// The first input header field called `name` (compared case-insensitively), as libevent holds it.
    @inlinable
    package func inputHeader(_ name: String) -> UnsafePointer<CChar>? {
        evhttp_find_header(evhttp_request_get_input_headers(pointer), name)
    }

    /// Adds an output header field, with the texts' own bytes (`withCString`): a String passed to a C parameter as it
    /// is gets copied into a new C-string array first, two allocations per header.
    @inlinable
    package func addOutputHeader(_ name: String, _ value: String) {
        let headers = evhttp_request_get_output_headers(pointer)
        _ = name.withCString { name in value.withCString { value in evhttp_add_header(headers, name, value) } }
    }

    @inlinable package var outputBody: EventBuffer? {
        evhttp_request_get_output_buffer(pointer).map(EventBuffer.init)
    }

    @inlinable package var method: EvhttpMethods {
        EvhttpMethods(rawValue: evhttp_request_get_command(pointer).rawValue)
    }

    /// The HTTP version of the request line (of the reply's, on the client), as evhttp parsed it; settable on the server
    /// for the answer.
    @inlinable package var version: (major: Int, minor: Int) {
        get { (Int(pointer.pointee.major), Int(pointer.pointee.minor)) }
        nonmutating set {
            pointer.pointee.major = CChar(newValue.major)
            pointer.pointee.minor = CChar(newValue.minor)
        }
    }

    /// Whether its target is an absolute URI (a proxy request).
    @inlinable package var isProxyRequest: Bool {
        pointer.pointee.flags & EVHTTP_PROXY_REQUEST != 0
    }

    /// The path of its target as sent (not decoded), nil when there is none.
    @inlinable package var rawPath: UnsafePointer<CChar>? {
        evhttp_request_get_evhttp_uri(pointer).flatMap(evhttp_uri_get_path)
    }

    /// The query of its target, nil when there is none.
    @inlinable package var query: String? {
        evhttp_request_get_evhttp_uri(pointer).flatMap(evhttp_uri_get_query).map { String(cString: $0) }
    }

    /// The connection it came on (or goes out on).
    @inlinable package var connection: EvhttpConnection? {
        evhttp_request_get_connection(pointer).map(EvhttpConnection.init)
    }

    /// The status of the client's reply, 0 when none came.
    @inlinable package var responseCode: Int {
        Int(evhttp_request_get_response_code(pointer))
    }

    /// Answers with `status`, the output headers and the output body.
    @inlinable
    package func sendReply(status: Int, reason: String) {
        evhttp_send_reply(pointer, Int32(status), reason, nil)
    }

    /// Answers with `status` and libevent's own page.
    @inlinable
    package func sendError(status: Int) {
        evhttp_send_error(pointer, Int32(status), nil)
    }

    /// Sends `chunk`'s bytes as the only chunk of an answer whose status line and headers are in them, and ends it.
    @inlinable
    package func sendWhole(_ chunk: EventBuffer) {
        evhttp_send_reply_chunk(pointer, chunk.pointer)
        evhttp_send_reply_end(pointer)
    }

    /// Why a client's request failed, as evhttp reports it.
    package enum Failure {
        /// The reply's body is over the limit (or its chunked encoding is broken).
        case dataTooLong
        /// The status line or a header is malformed, or the header section is over the limit.
        case invalidHeader
        /// The connection was idle for evhttp's timeout.
        case timeout
        /// Anything else (the connection closed, a buffer failed, the request was cancelled).
        case other

        package init(_ error: evhttp_request_error) {
            switch error {
            case EVREQ_HTTP_DATA_TOO_LONG: self = .dataTooLong
            case EVREQ_HTTP_INVALID_HEADER: self = .invalidHeader
            case EVREQ_HTTP_TIMEOUT: self = .timeout
            default: self = .other
            }
        }
    }

    /// Tells `callback` (with the request's argument) why the client's request failed, just before its done callback.
    package func onError(_ callback: @convention(c) (evhttp_request_error, UnsafeMutableRawPointer?) -> Void) {
        evhttp_request_set_error_cb(pointer, callback)
    }

    /// `raw` percent-decoded ("+" stays "+"), nil when libevent could not.
    package static func percentDecoded(_ raw: UnsafePointer<CChar>) -> String? {
        var length = 0
        guard let decoded = evhttp_uridecode(raw, 0, &length) else { return nil }
        defer { Glibc.free(decoded) }
        return String(decoding: UnsafeRawBufferPointer(start: decoded, count: length), as: UTF8.self)
    }
}
