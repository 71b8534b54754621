import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One libevent `evhttp_connection`: a connection the server accepted, or one the client opens for a request. It owns
/// its bufferevent. Used on its loop's thread.
package struct EvhttpConnection {
    @usableFromInline package let pointer: OpaquePointer

    @inlinable package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A client connection to `address` (numeric) and `port` over `bufferEvent` (which it then owns), with names
    /// resolved by `resolver`; nil when libevent could not make it.
    package static func client(base: EventBase, resolver: DNSResolver, bufferEvent: BufferEvent, address: String, port: Int) -> EvhttpConnection? {
        evhttp_connection_base_bufferevent_new(base.pointer, resolver.pointer, bufferEvent.pointer, address, UInt16(port))
            .map(EvhttpConnection.init)
    }

    /// Closes and frees it with its bufferevent (and the requests it holds).
    @inlinable
    package func free() {
        evhttp_connection_free(pointer)
    }

    @inlinable package var bufferEvent: BufferEvent? {
        evhttp_connection_get_bufferevent(pointer).map(BufferEvent.init)
    }

    /// The peer's address as text (numeric), "" when unknown.
    @inlinable package var peerAddress: String {
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(pointer, &address, &port)
        return address.map { String(cString: $0) } ?? ""
    }

    /// The peer's socket address.
    @inlinable package var peer: UnsafePointer<sockaddr>? {
        evhttp_connection_get_addr(pointer)
    }

    /// Calls `callback` with `argument` when evhttp closes the connection.
    @inlinable
    package func onClose(_ callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void, argument: UnsafeMutableRawPointer?) {
        evhttp_connection_set_closecb(pointer, callback, argument)
    }

    /// A client connection's limits on the reply, no retries, and evhttp's inactivity timeout.
    package func setClientLimits(maximumHeaderSize: Int, maximumBodySize: Int, inactivity: timeval) {
        var inactivity = inactivity
        evhttp_connection_set_max_headers_size(pointer, maximumHeaderSize)
        evhttp_connection_set_max_body_size(pointer, maximumBodySize)
        evhttp_connection_set_retries(pointer, 0)
        evhttp_connection_set_timeout_tv(pointer, &inactivity)
    }

    /// Sends `request` (`method` to `target`, the path and query) once connected; false when it could not be started
    /// (evhttp then has freed the request, or still holds it and frees it with the connection).
    package func send(_ request: EvhttpRequest, method: EvhttpMethods, target: String) -> Bool {
        evhttp_make_request(pointer, request.pointer, evhttp_cmd_type(rawValue: method.rawValue), target) == 0
    }
}
