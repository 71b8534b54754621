import Dispatch
import Foundation
import Storage
import Synchronization

/// At most `size` connections to one database, opened when first needed and kept open while they work.
///
/// A caller borrows a connection alone for one call (`withConnection`). When all are lent, it waits up to
/// `waitTimeout` and then fails with `storage.unavailable`. A connection that failed (the server went away or
/// restarted) is closed instead of being returned, and so is every idle one, since they likely face the same
/// dead server; the next caller connects afresh, so the pool recovers as soon as the server is back. An idle
/// connection the server closed meanwhile is noticed when it is taken, before it carries the call.
final class PostgresConnectionPool: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var isClosed = false
    }

    let connectionString: String
    let size: Int
    /// Whether the connection string reaches PostgreSQL through a transaction-mode pooler (see `PostgresConnection`).
    let transactionPooling: Bool
    /// Where every connection's notices go.
    let notices: PostgresNoticeReceiver
    private let waitTimeout: Duration
    /// How long each call waits for the server's answer (`PostgresConnection.replyDeadline`).
    let replyDeadline: Duration
    /// How long a call without a deadline of its own takes at most, whatever it waits for (see `withConnection`).
    let callTimeout: Duration
    /// PostgreSQL's own bound of a call's lock waits and statements, in milliseconds: half a second below `callTimeout`
    /// or `replyDeadline`, whichever is shorter, so that the server stops waiting (and frees its lock queue and its
    /// backend) before the client gives up on it and closes the connection, which a backend waiting for a lock would
    /// not notice. Each connection's `lock_timeout` (direct connections: through a pooler, the session is not ours)
    /// and `PostgresStore`'s transactions' (`SET LOCAL`, both ways).
    var serverTimeoutMilliseconds: Int {
        max(100, min(Self.milliseconds(callTimeout), Self.milliseconds(replyDeadline)) - 500)
    }

    /// The server's bound of one statement's lock wait in a call with a deadline of its own (an import): half a second
    /// below `replyDeadline`, after which the client gives up on the statement.
    var statementLockTimeoutMilliseconds: Int {
        max(100, Self.milliseconds(replyDeadline) - 500)
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
    private let permits: DispatchSemaphore
    private let state = Mutex(State())
    /// Calls that found every connection lent and waited, and those whose wait ran out (for the metrics).
    private let waits = Atomic<Int>(0)
    private let waitTimeouts = Atomic<Int>(0)

    init(
        connectionString: String,
        size: Int,
        waitTimeout: Duration,
        replyDeadline: Duration = PostgresConnection.defaultReplyDeadline,
        callTimeout: Duration = PostgresStore.defaultCallTimeout,
        transactionPooling: Bool = false,
        notices: PostgresNoticeReceiver = PostgresNoticeReceiver { _ in }
    ) {
        self.notices = notices
        self.connectionString = connectionString
        self.replyDeadline = replyDeadline
        self.callTimeout = callTimeout
        self.size = size
        self.transactionPooling = transactionPooling
        self.waitTimeout = waitTimeout
        permits = DispatchSemaphore(value: size)
    }

    /// How many calls have waited for a connection, and how many of them gave up.
    var waitCounts: (waits: Int, timeouts: Int) {
        (waits.load(ordering: .relaxed), waitTimeouts.load(ordering: .relaxed))
    }

    /// Lends one connection to `body`, connecting when no idle connection is left. With `deferringDurability`, the
    /// call's commits do not wait for the WAL flush (`PostgresConnection.defersDurability`: a setting of each of its
    /// transactions, never of the session, so any connection serves any call, through a transaction pooler too).
    /// The call is over by its `deadline` (by default `callTimeout` from now), whatever it waits for: a free
    /// connection (at most `waitTimeout` all the same), a new one and `body`'s statements (a lock wait included, each
    /// statement at most `replyDeadline` all the same); past it the call throws `storage.unavailable` (`timedOut`),
    /// and a connection left waiting for an answer is closed.
    func withConnection<Result>(
        deferringDurability: Bool = false,
        deadline: ContinuousClock.Instant? = nil,
        _ body: (PostgresConnection) throws(PostgresError) -> Result
    ) throws(StorageError) -> Result {
        let deadline = deadline ?? ContinuousClock.now.advanced(by: callTimeout)
        if permits.wait(timeout: .now()) != .success {
            waits.add(1, ordering: .relaxed)
            guard permits.wait(timeout: .now() + wait(until: deadline)) == .success else {
                waitTimeouts.add(1, ordering: .relaxed)
                throw StorageError(.unavailable, "all \(size) PostgreSQL connections stayed busy for as long as the call may wait", outage: .timedOut)
            }
        }
        defer { permits.signal() }
        let reused = state.withLock { state -> PostgresConnection?? in
            guard !state.isClosed else { return .none }
            return .some(state.idle.popLast())
        }
        guard var reused else { throw StorageError(.unavailable, "the store is closed") }
        if let idle = reused, !idle.isAliveAfterIdling {
            // The server closed it (a restart, a failover): so it did with the other idle ones.
            state.withLock { $0.idle.removeAll() }
            reused = nil
        }
        let connection: PostgresConnection
        if let reused {
            connection = reused
        } else {
            do throws(PostgresError) {
                connection = try PostgresConnection(
                    connectionString: connectionString,
                    transactionPooling: transactionPooling,
                    notices: notices,
                    replyDeadline: replyDeadline,
                    connectDeadline: deadline,
                    lockTimeoutMilliseconds: serverTimeoutMilliseconds
                )
            } catch {
                throw error.storageError
            }
        }
        connection.callDeadline = deadline
        connection.defersDurability = deferringDurability
        defer {
            connection.callDeadline = nil
            connection.defersDurability = false
        }
        do throws(PostgresError) {
            let result = try body(connection)
            giveBack(connection)
            return result
        } catch {
            // A failed connection means the server went (its other connections with it); a call that ran out of time
            // leaves only its own connection unusable (`giveBack` drops it), and the idle ones are kept.
            if error.code == .connectionFailed {
                state.withLock { $0.idle.removeAll() }
            } else {
                giveBack(connection)
            }
            throw error.storageError
        }
    }

    /// How long a call may wait for a free connection: `waitTimeout`, or less when its `deadline` comes sooner.
    private func wait(until deadline: ContinuousClock.Instant) -> DispatchTimeInterval {
        let longest = min(waitTimeout, max(.zero, ContinuousClock.now.duration(to: deadline)))
        let (seconds, attoseconds) = longest.components
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// Closes every idle connection and refuses new calls; lent connections close when they come back.
    func close() {
        state.withLock { state in
            state.isClosed = true
            state.idle.removeAll()
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        guard connection.isReusable else { return }
        state.withLock { state in
            if !state.isClosed { state.idle.append(connection) }
        }
    }
}
