import CLibEvent

/// One libevent `evconnlistener`: the accepting side of a listening socket (evhttp's, freed with it).
package struct ConnectionListener: Equatable {
    @usableFromInline package let pointer: OpaquePointer

    package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Calls `callback` (with the listener) when `accept` fails; without one, libevent logs the failure and tries again
    /// at once, for as long as the socket stays readable.
    package func onAcceptFailure(_ callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void) {
        evconnlistener_set_error_cb(pointer, callback)
    }

    /// Accepts again (`true`) or stops accepting.
    package func setAccepting(_ accepting: Bool) {
        _ = accepting ? evconnlistener_enable(pointer) : evconnlistener_disable(pointer)
    }
}
