import Synchronization

/// The number of open connections across all event loops, for the connection cap.
final class ConnectionCounter: Sendable {
    private let open = Atomic<Int>(0)

    /// Counts a new connection and returns the number now open.
    func opened() -> Int {
        open.add(1, ordering: .relaxed).newValue
    }

    /// Counts a closed connection.
    func closed() {
        open.subtract(1, ordering: .relaxed)
    }

    /// The number of open connections.
    var current: Int {
        open.load(ordering: .relaxed)
    }
}
