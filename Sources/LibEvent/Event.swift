import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// One libevent `event`: a timer, a watch on a descriptor, or a wake-up that another thread activates. Used on its
/// base's thread, except `activate`, which any thread may call (once `LibEventSetup.isReady`).
package struct Event {
    /// What an event waits for.
    package struct Kinds: OptionSet, Sendable {
        package let rawValue: Int16
        package init(rawValue: Int16) { self.rawValue = rawValue }

        /// The descriptor is readable.
        package static let read = Kinds(rawValue: Int16(EV_READ))
        /// It stays added after it ran.
        package static let persist = Kinds(rawValue: Int16(EV_PERSIST))
    }

    @usableFromInline package let pointer: OpaquePointer

    /// An event on `base` for `descriptor` (-1: a timer or a wake-up) that calls `callback` with `argument`; nil when
    /// libevent could not make it.
    @inlinable
    package init?(base: EventBase, descriptor: Int32 = -1, kinds: Kinds = [], _ callback: EventCallback, argument: UnsafeMutableRawPointer?) {
        guard let pointer = event_new(base.pointer, descriptor, kinds.rawValue, callback, argument) else { return nil }
        self.pointer = pointer
    }

    /// Adds (or re-arms) the event, with a timeout when given; false when libevent refused.
    @inlinable @discardableResult
    package func add(timeout: timeval? = nil) -> Bool {
        guard var timeout else { return event_add(pointer, nil) == 0 }
        return event_add(pointer, &timeout) == 0
    }

    /// Takes the event off its base (it can be added again).
    @inlinable
    package func remove() {
        event_del(pointer)
    }

    /// Makes the event's callback run in the loop's next turn; callable from any thread.
    @inlinable
    package func activate() {
        event_active(pointer, 0, 0)
    }

    /// Removes and frees the event.
    @inlinable
    package func free() {
        event_free(pointer)
    }
}
