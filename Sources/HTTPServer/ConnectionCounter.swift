import Synchronization

/// The open connections across all event loops: their number, for the global cap, and their number per client
/// address, for the per-address cap; and how TLS handshakes ended, for the metrics.
final class ConnectionCounter: Sendable {
    private let open = Atomic<Int>(0)
    private let handshakesCompleted = Atomic<Int>(0)
    private let handshakesFailed = Atomic<Int>(0)
    private let perAddress = Mutex<[PeerAddress: Int]>([:])

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

    /// Counts a TLS handshake that completed, or (`completed` false) a TLS connection that closed before its handshake did.
    func handshakeEnded(completed: Bool) {
        if completed {
            handshakesCompleted.add(1, ordering: .relaxed)
        } else {
            handshakesFailed.add(1, ordering: .relaxed)
        }
    }

    /// TLS handshakes completed and failed so far.
    var handshakes: (completed: Int, failed: Int) {
        (handshakesCompleted.load(ordering: .relaxed), handshakesFailed.load(ordering: .relaxed))
    }

    /// Counts a connection from `address` unless `address` already holds `limit`; whether it was counted.
    func admit(_ address: PeerAddress, limit: Int) -> Bool {
        perAddress.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    /// Uncounts a connection that `admit` counted.
    func release(_ address: PeerAddress) {
        perAddress.withLock { counts in
            let count = counts[address, default: 0] - 1
            counts[address] = count > 0 ? count : nil
        }
    }

    /// The connections `address` holds (for tests).
    func count(of address: PeerAddress) -> Int {
        perAddress.withLock { $0[address, default: 0] }
    }
}
