import LibEvent
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Work handed to an event loop from other threads: a worker's finished response, which only the loop that owns the
/// connection may write. `post` appends under a lock and, when the mailbox was empty, writes to an `eventfd` that the
/// loop watches; the loop then runs everything posted, in order, on its own thread. After `close` (the loop is gone)
/// a post is dropped.
///
/// The wake-up is the mailbox's own descriptor rather than `event_active` on a libevent event: `event_active` from
/// another thread takes the event base's lock, which the loop holds while it works (a `futex` wait for the worker and
/// a `futex` wake for the loop whenever they met), and then writes libevent's own notification descriptor all the
/// same. And it is written outside the deliveries' lock, under a read lock that only `close` (closing the descriptor)
/// takes for writing: posts never wait for one another, nor the loop for a post.
///
/// TLS: a worker never touches a connection. The response crosses as a value in a delivery, and the connection's
/// bufferevent and OpenSSL object are used by the loop's thread alone (evhttp's, in `EventLoopListener.finish`), so no
/// SSL object is ever used by two threads, whichever thread made the response.
///
/// `@unchecked Sendable`: the descriptor is written under the read lock and closed under the write lock by `close`;
/// the event is used on the loop's thread only.
final class LoopMailbox: @unchecked Sendable {
    typealias Delivery = @Sendable () -> Void

    private struct State {
        var deliveries: [Delivery] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    /// The `eventfd` a post signals when the mailbox was empty; nil once closed (under `descriptorLock` write-locked).
    nonisolated(unsafe) private var wakeUp: WakeUpDescriptor?
    /// Allocated, not a stored `pthread_rwlock_t`: a lock must not move, and Swift does not promise a stored property's
    /// address.
    private let descriptorLock: UnsafeMutablePointer<pthread_rwlock_t>
    /// The loop's persistent read watch on `descriptor`, freed by `close`.
    private var event: Event?

    /// Makes the descriptor and its watch on `base`; deliveries run on the thread that runs `base`.
    init(base: EventBase) throws(HTTPServerError) {
        guard let wakeUp = WakeUpDescriptor() else {
            throw HTTPServerError(.eventLoopFailed, "eventfd: \(String(cString: strerror(errno)))")
        }
        self.wakeUp = wakeUp
        descriptorLock = .allocate(capacity: 1)
        pthread_rwlock_init(descriptorLock, nil)
        let event = Event(
            base: base,
            descriptor: wakeUp.descriptor,
            kinds: [.read, .persist],
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<LoopMailbox>.fromOpaque(argument).takeUnretainedValue().deliver()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        guard let event, event.add() else {
            event?.free()
            wakeUp.close()
            throw HTTPServerError(.eventLoopFailed, "event_new failed")
        }
        self.event = event
    }

    deinit {
        pthread_rwlock_destroy(descriptorLock)
        descriptorLock.deallocate()
    }

    /// Runs `delivery` on the loop's thread soon; dropped once the loop is closed.
    func post(_ delivery: @escaping Delivery) {
        // Only the post that finds the mailbox empty wakes the loop: the deliveries it finds later are taken with its own.
        let wakes = state.withLock { state in
            guard !state.isClosed else { return false }
            state.deliveries.append(delivery)
            return state.deliveries.count == 1
        }
        guard wakes else { return }
        pthread_rwlock_rdlock(descriptorLock)
        wakeUp?.signal()
        pthread_rwlock_unlock(descriptorLock)
    }

    /// Drops what is still undelivered, frees the watch and closes the descriptor; later posts are dropped. Call on the
    /// loop's thread or after it ended, before the base is freed.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.deliveries.removeAll()
        }
        event?.free()
        event = nil
        pthread_rwlock_wrlock(descriptorLock)
        wakeUp?.close()
        wakeUp = nil
        pthread_rwlock_unlock(descriptorLock)
    }

    private func deliver() {
        // Read first: a post after the read and before the take is taken now, and costs at most an empty turn later; a
        // read after the take could swallow the wake-up of a post made in between.
        wakeUp?.drain()
        let deliveries = state.withLock { state in
            let taken = state.deliveries
            state.deliveries.removeAll(keepingCapacity: true)
            return taken
        }
        for delivery in deliveries { delivery() }
    }
}
