import CLibEvent

#if canImport(Glibc)
import Glibc
#endif

/// The C callback of a buffer's watch (`addWatch`): the buffer, what changed (`added`, `deleted`) and the argument.
package typealias EventBufferCallback = @convention(c) (OpaquePointer?, UnsafePointer<evbuffer_cb_info>?, UnsafeMutableRawPointer?) -> Void

extension evbuffer_cb_info {
    /// Bytes added to the buffer by the change.
    @inlinable package var added: Int { n_added }
    /// Bytes taken from the buffer by the change.
    @inlinable package var deleted: Int { n_deleted }
}

/// One libevent `evbuffer`: a connection's input or output, or a buffer of the caller's own. Used on its loop's thread.
package struct EventBuffer {
    @usableFromInline package let pointer: OpaquePointer

    @inlinable package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// A buffer of the caller's own, freed with `free`.
    package static func make() -> EventBuffer? {
        evbuffer_new().map(EventBuffer.init)
    }

    package func free() {
        evbuffer_free(pointer)
    }

    /// The bytes it holds.
    @inlinable package var count: Int {
        evbuffer_get_length(pointer)
    }

    /// Appends `bytes`.
    @inlinable
    package func append(_ bytes: [UInt8]) {
        evbuffer_add(pointer, bytes, bytes.count)
    }

    /// Moves all of `other`'s bytes to the end of this buffer.
    @inlinable
    package func append(contentsOf other: EventBuffer) {
        evbuffer_add_buffer(pointer, other.pointer)
    }

    /// Moves the first `count` bytes to the end of `other`.
    @inlinable
    package func moveFront(_ count: Int, to other: EventBuffer) {
        evbuffer_remove_buffer(pointer, other.pointer, count)
    }

    /// Removes the first `count` bytes; false when libevent refused (a frozen front).
    @inlinable @discardableResult
    package func drain(_ count: Int) -> Bool {
        evbuffer_drain(pointer, count) == 0
    }

    /// Whether the front is frozen (a socket bufferevent's output between writes): libevent then refuses to drain it.
    @inlinable package var isFrontFrozen: Bool {
        evbuffer_drain(pointer, 0) != 0
    }

    /// Freezes (`true`) or thaws the front.
    @inlinable
    package func setFrontFrozen(_ frozen: Bool) {
        if frozen { evbuffer_freeze(pointer, 1) } else { evbuffer_unfreeze(pointer, 1) }
    }

    /// Makes the first `count` bytes contiguous.
    @inlinable
    package func makeContiguous(_ count: Int) {
        _ = evbuffer_pullup(pointer, count)
    }

    /// Lets `write` put up to `capacity` bytes straight into the buffer's own memory (one extent), then keeps the bytes
    /// it says it wrote; false when libevent had no such extent (nothing is added).
    @inlinable
    package func append(capacity: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> Bool {
        var extent = iovec()  // libevent's evbuffer_iovec
        guard evbuffer_reserve_space(pointer, capacity, &extent, 1) == 1, let space = extent.iov_base else { return false }
        extent.iov_len = write(UnsafeMutableBufferPointer(start: space.assumingMemoryBound(to: UInt8.self), count: capacity))
        evbuffer_commit_space(pointer, &extent, 1)
        return true
    }

    /// Removes every byte and returns them.
    @inlinable
    package func removeAll() -> [UInt8] {
        let length = count
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { bytes, initialized in
            initialized = max(0, Int(evbuffer_remove(pointer, bytes.baseAddress, length)))
        }
    }

    /// Up to `count` bytes from `offset`, copied without removing them ([] when the buffer refuses: a frozen front).
    @inlinable
    package func copy(from offset: Int, count: Int) -> [UInt8] {
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(pointer, &position, offset, EVBUFFER_PTR_SET) == 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { bytes, initialized in
            initialized = max(0, evbuffer_copyout_from(pointer, &position, bytes.baseAddress, count))
        }
    }

    /// Whether a NUL byte lies at or after `offset`, searched where it lies.
    @inlinable
    package func containsNUL(from offset: Int) -> Bool {
        var start = evbuffer_ptr()
        guard evbuffer_ptr_set(pointer, &start, offset, EVBUFFER_PTR_SET) == 0 else { return false }
        return evbuffer_search(pointer, "\0", 1, &start).pos >= 0
    }

    /// Calls `callback` with `argument` after every change of the buffer, until `removeWatch`; nil when libevent could not.
    @inlinable
    package func addWatch(_ callback: EventBufferCallback, argument: UnsafeMutableRawPointer?) -> Watch? {
        evbuffer_add_cb(pointer, callback, argument).map(Watch.init)
    }

    @inlinable
    package func removeWatch(_ watch: Watch) {
        evbuffer_remove_cb_entry(pointer, watch.pointer)
    }

    /// Turns `watch` off (`false`) or on again.
    @inlinable
    package func setWatch(_ watch: Watch, enabled: Bool) {
        if enabled {
            evbuffer_cb_set_flags(pointer, watch.pointer, UInt32(EVBUFFER_CB_ENABLED))
        } else {
            evbuffer_cb_clear_flags(pointer, watch.pointer, UInt32(EVBUFFER_CB_ENABLED))
        }
    }

    /// One watch of a buffer (`evbuffer_cb_entry`).
    package struct Watch {
        @usableFromInline package let pointer: OpaquePointer
        @inlinable package init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }
}
