import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// The C callback of a libevent event: the descriptor, what happened, and the argument it was made with.
package typealias EventCallback = @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void

/// One libevent `event_base`: the loop that runs on one thread and every event, connection and lookup made on it.
/// Only `exitLoop` may be called from another thread (once `LibEventSetup.isReady`).
package struct EventBase {
    @usableFromInline package let pointer: OpaquePointer

    @inlinable package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A new base; with `collectingChanges` (epoll's changelist, `EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST`) the changes to
    /// the watched events made during one turn are applied together before the next wait.
    package static func make(collectingChanges: Bool = false) -> EventBase? {
        guard collectingChanges else { return event_base_new().map(EventBase.init) }
        guard let settings = event_config_new() else { return nil }
        defer { event_config_free(settings) }
        _ = event_config_set_flag(settings, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        return event_base_new_with_config(settings).map(EventBase.init)
    }

    /// Frees the base; every event and connection on it must be freed first.
    package func free() {
        event_base_free(pointer)
    }

    /// Runs the loop until it is asked to exit or has no event left.
    package func run() {
        event_base_dispatch(pointer)
    }

    /// Runs the loop until it is asked to exit, even while it has no event.
    package func runUntilExit() {
        event_base_loop(pointer, EVLOOP_NO_EXIT_ON_EMPTY)
    }

    /// Runs the callbacks that are ready now, without waiting.
    package func runReadyCallbacks() {
        event_base_loop(pointer, EVLOOP_NONBLOCK)
    }

    /// Asks the loop to return, after `delay` when given (else after this turn); callable from any thread, even
    /// before the loop started running. False when libevent refused.
    @discardableResult
    package func exitLoop(after delay: timeval? = nil) -> Bool {
        guard var delay else { return event_base_loopexit(pointer, nil) == 0 }
        return event_base_loopexit(pointer, &delay) == 0
    }

    /// Calls `callback` once with `argument` on the loop's thread, after `delay` (or in the next turn); false when it
    /// could not be scheduled (the callback then never runs).
    @inlinable
    package func once(after delay: timeval? = nil, _ callback: EventCallback, argument: UnsafeMutableRawPointer?) -> Bool {
        guard var delay else { return event_base_once(pointer, -1, Int16(EV_TIMEOUT), callback, argument, nil) == 0 }
        return event_base_once(pointer, -1, Int16(EV_TIMEOUT), callback, argument, &delay) == 0
    }
}
