import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One libevent `bufferevent`: a connection's socket (plain, or OpenSSL's over it) with its input and output buffers.
/// Used on its loop's thread.
package struct BufferEvent: Hashable {
    /// The TLS side a new OpenSSL bufferevent takes.
    package enum TLSRole {
        /// A server's: the handshake starts when the client's hello arrives.
        case accepting
        /// A client's: the handshake starts once the socket connects.
        case connecting
    }

    @usableFromInline package let pointer: OpaquePointer

    @inlinable package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A bufferevent with no socket yet (evhttp gives it one), which closes its socket when freed; with
    /// `deferringCallbacks`, its callbacks run from the loop rather than inside the call that caused them.
    @inlinable
    package static func plain(base: EventBase, deferringCallbacks: Bool = false) -> BufferEvent? {
        bufferevent_socket_new(base.pointer, -1, options(deferringCallbacks)).map(BufferEvent.init)
    }

    /// As `plain`, over OpenSSL with `session` (an `SSL`, which the bufferevent then owns) in `role`.
    @inlinable
    package static func tls(base: EventBase, session: OpaquePointer, role: TLSRole, deferringCallbacks: Bool = false) -> BufferEvent? {
        let state = role == .accepting ? BUFFEREVENT_SSL_ACCEPTING : BUFFEREVENT_SSL_CONNECTING
        return bufferevent_openssl_socket_new(base.pointer, -1, session, state, options(deferringCallbacks)).map(BufferEvent.init)
    }

    @usableFromInline static func options(_ deferringCallbacks: Bool) -> Int32 {
        Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | (deferringCallbacks ? BEV_OPT_DEFER_CALLBACKS.rawValue : 0))
    }

    /// Takes a TLS peer's close without `close_notify` as the end of the stream, not as an error.
    @inlinable
    package func allowDirtyShutdown() {
        bufferevent_openssl_set_allow_dirty_shutdown(pointer, 1)
    }

    package func free() {
        bufferevent_free(pointer)
    }

    /// Holds the bufferevent (evhttp may free it meanwhile) until `release`.
    @inlinable
    package func retain() {
        bufferevent_incref(pointer)
    }

    @inlinable
    package func release() {
        bufferevent_decref(pointer)
    }

    @inlinable package var input: EventBuffer? {
        bufferevent_get_input(pointer).map(EventBuffer.init)
    }

    @inlinable package var output: EventBuffer? {
        bufferevent_get_output(pointer).map(EventBuffer.init)
    }

    /// The socket.
    @inlinable package var descriptor: Int32 {
        bufferevent_getfd(pointer)
    }

    /// Stops (`false`) or resumes reading; false when libevent refused.
    @inlinable @discardableResult
    package func setReading(_ reading: Bool) -> Bool {
        (reading ? bufferevent_enable(pointer, Int16(EV_READ)) : bufferevent_disable(pointer, Int16(EV_READ))) == 0
    }

    @inlinable
    package func setTimeouts(read: timeval, write: timeval) {
        var read = read
        var write = write
        bufferevent_set_timeouts(pointer, &read, &write)
    }

    /// The evhttp connection that owns it (the argument of its event callback), nil once evhttp gave it up.
    @inlinable package var owningConnection: EvhttpConnection? {
        var eventCallback: bufferevent_event_cb?
        var argument: UnsafeMutableRawPointer?
        bufferevent_getcb(pointer, nil, nil, &eventCallback, &argument)
        guard eventCallback != nil else { return nil }
        return OpaquePointer(argument).map(EvhttpConnection.init)
    }

    /// The `SSL` of an OpenSSL bufferevent, nil for a plain one.
    @inlinable package var tlsSession: OpaquePointer? {
        bufferevent_openssl_get_ssl(pointer)
    }

    /// The next of the OpenSSL errors it recorded, 0 when none is left.
    package func nextTLSError() -> UInt {
        bufferevent_get_openssl_error(pointer)
    }

    /// Starts writing its output in this turn of the loop instead of after the next poll (`pk_bufferevent_write_now`
    /// in the C target); whether it did.
    @inlinable
    package func writeNow() -> Bool {
        pk_bufferevent_write_now(pointer) == 1
    }
}
