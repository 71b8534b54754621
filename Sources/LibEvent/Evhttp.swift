import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// The C callback that makes each new connection's bufferevent: the base and the argument.
package typealias BufferEventFactory = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> OpaquePointer?

/// One libevent `evhttp`: an HTTP server on one base, accepting on one socket. Used on its loop's thread.
package struct Evhttp {
    @usableFromInline package let pointer: OpaquePointer

    /// A server on `base` that lets `methods` through (libevent answers others itself), reads bodies and header
    /// sections up to the limits, gives a connection `timeoutSeconds` to send each read, sets no default content type,
    /// and closes connections lingering (reading what the client still sends after an error).
    package init?(base: EventBase, methods: EvhttpMethods, maximumBodySize: Int, maximumHeaderSize: Int, timeoutSeconds: Int) {
        guard let pointer = evhttp_new(base.pointer) else { return nil }
        self.pointer = pointer
        evhttp_set_allowed_methods(pointer, UInt16(methods.rawValue))
        evhttp_set_max_body_size(pointer, maximumBodySize)
        evhttp_set_max_headers_size(pointer, maximumHeaderSize)
        evhttp_set_default_content_type(pointer, nil)
        _ = evhttp_set_flags(pointer, Int32(EVHTTP_SERVER_LINGERING_CLOSE))
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        evhttp_set_timeout_tv(pointer, &timeout)
    }

    /// Frees it with its connections and its socket.
    package func free() {
        evhttp_free(pointer)
    }

    /// Has `factory` make each accepted connection's bufferevent, and `handler` take each request, both with `argument`.
    package func setCallbacks(bufferEvents factory: BufferEventFactory, requests handler: EvhttpRequestCallback, argument: UnsafeMutableRawPointer?) {
        evhttp_set_bevcb(pointer, factory, argument)
        evhttp_set_gencb(pointer, handler, argument)
    }

    /// Accepts on `descriptor` (a listening socket it then owns and closes); nil when it could not.
    package func accept(on descriptor: Int32) -> ConnectionListener? {
        evhttp_accept_socket_with_handle(pointer, descriptor).flatMap(evhttp_bound_socket_get_listener).map(ConnectionListener.init)
    }
}
