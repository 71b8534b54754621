import LibEvent
import Synchronization

/// Work handed to an event loop from other threads: a worker's finished response, which only the loop that owns the
/// connection may write. `post` appends under a lock and activates one libevent event (thread-safe once
/// `evthread_use_pthreads` ran); the loop then runs everything posted, in order, on its own thread. After `close`
/// (the loop is gone) a post is dropped.
///
/// `@unchecked Sendable`: the event is only activated under the lock and freed under it by `close`.
final class LoopMailbox: @unchecked Sendable {
    typealias Delivery = @Sendable () -> Void

    private struct State {
        var deliveries: [Delivery] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    /// Activated by `post` and freed by `close`, both under `state`'s lock.
    nonisolated(unsafe) private var event: Event?

    /// Makes the event on `base`; deliveries run on the thread that runs `base`.
    init(base: EventBase) throws(HTTPServerError) {
        let event = Event(
            base: base,
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<LoopMailbox>.fromOpaque(argument).takeUnretainedValue().deliver()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        guard let event else { throw HTTPServerError(.eventLoopFailed, "event_new failed") }
        self.event = event
    }

    /// Runs `delivery` on the loop's thread soon; dropped once the loop is closed.
    func post(_ delivery: @escaping Delivery) {
        state.withLock { state in
            guard !state.isClosed, let event else { return }
            state.deliveries.append(delivery)
            if state.deliveries.count == 1 { event.activate() }
        }
    }

    /// Drops what is still undelivered and frees the event; later posts are dropped. Call on the loop's thread or
    /// after it ended, before the base is freed.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.deliveries.removeAll()
            event?.free()
            event = nil
        }
    }

    private func deliver() {
        let deliveries = state.withLock { state in
            let taken = state.deliveries
            state.deliveries.removeAll(keepingCapacity: true)
            return taken
        }
        for delivery in deliveries { delivery() }
    }
}
