import Foundation
import Storage
import Synchronization
import SystemThreads

/// The one connection of a store that listens for the notification announcing a change of the signing keys
/// (`LISTEN passkeyd_signing_keys`; `PostgresRecords` sends it in the transaction that writes them), on a thread of
/// its own, started by the first watcher. Each notification, and each (re)connection (changes may have been made while
/// it was not listening), runs every watcher's handler. A lost connection is made again after a pause growing from 1 s
/// to 30 s, and logged as a warning through the store's notices. Needs a direct or session-mode connection:
/// `LISTEN` does not survive a transaction-mode pooler.
final class PostgresListener: Sendable {
    /// The channel, and the statement that notifies it.
    static let signingKeysChannel = "passkeyd_signing_keys"
    static let signingKeysNotification = "NOTIFY \(signingKeysChannel)"
    /// The longest pause between two attempts to connect.
    static let longestReconnectPause = Duration.seconds(30)
    /// How long a connection attempt may take.
    static let connectTimeout = Duration.seconds(5)
    /// The listening connection's keep-alives: it only ever reads, so a peer gone silently (a host lost, a network
    /// that drops, no reset) is noticed only by them, about 30 s after the last packet (10 s, then 4 probes 5 s apart),
    /// and the connection is made again.
    static let keepalive = (idle: 10, interval: 5, count: 4)
    /// How often the thread looks whether it must stop while no notification comes.
    private static let stopCheckInterval = Duration.milliseconds(500)

    private struct State {
        var handlers: [@Sendable () -> Void] = []
        var isStarted = false
        var isStopped = false
        /// Between a `LISTEN` that succeeded and the loss of its connection.
        var isListening = false
    }

    private let connectionString: String
    private let notices: PostgresNoticeReceiver
    private let state = Mutex(State())

    init(connectionString: String, notices: PostgresNoticeReceiver) {
        self.connectionString = connectionString
        self.notices = notices
    }

    /// Adds `handler`, starting the thread on the first one (the handler then runs once it listens).
    func watch(_ handler: @escaping @Sendable () -> Void) {
        let starting = state.withLock { state in
            state.handlers.append(handler)
            defer { state.isStarted = true }
            return !state.isStarted && !state.isStopped
        }
        guard starting else { return }
        guard NamedThread.startDetached(named: "passkeyd-listen", { [self] in run() }) else {
            // The next watcher tries again; meanwhile the watchers poll, as they do while the connection is lost.
            state.withLock { $0.isStarted = false }
            notices.receive(PostgresNotice(severity: "WARNING", message: "the signing-key listener: no thread could start"))
            return
        }
    }

    /// Makes the thread end (within `stopCheckInterval`) and close its connection. Idempotent.
    func stop() {
        state.withLock { $0.isStopped = true }
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Whether a change of the signing keys would be announced now: the thread has a connection that listens. False
    /// before the first `LISTEN` and while the connection is being made again, when a node must poll instead.
    var isListening: Bool { state.withLock { $0.isListening } }

    /// Sets `isListening`; returns what it was.
    @discardableResult
    private func setListening(_ listening: Bool) -> Bool {
        state.withLock { state in
            defer { state.isListening = listening }
            return state.isListening
        }
    }

    private func announce() {
        for handler in state.withLock({ $0.handlers }) { handler() }
    }

    /// A connection as the thread listens on: without startup options, which a session-mode pooler (`database.listen`
    /// may go through one) refuses as a transaction-mode one does; `LISTEN` needs none of them.
    func connect() throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(
            connectionString: connectionString,
            sendsStartupOptions: false,
            notices: notices,
            connectDeadline: .now + Self.connectTimeout,
            keepalive: Self.keepalive
        )
    }

    private func run() {
        var pause = Duration.seconds(1)
        while !isStopped {
            do throws(PostgresError) {
                let connection = try connect()
                try connection.execute("LISTEN \(Self.signingKeysChannel)")
                pause = .seconds(1)
                setListening(true)
                announce()
                while !isStopped {
                    if try !connection.awaitNotifications(for: Self.stopCheckInterval).isEmpty { announce() }
                }
            } catch {
                // A lost listener is told at once, so that a watcher that chose its next wait while listening (30 s)
                // chooses again now that it must poll: a signing key revoked meanwhile would be trusted that long.
                let wasListening = setListening(false)
                notices.receive(PostgresNotice(severity: "WARNING", message: "the signing-key listener: \(error.reason); connecting again"))
                if wasListening { announce() }
                let resume = ContinuousClock.now + pause
                while !isStopped, ContinuousClock.now < resume { Thread.sleep(forTimeInterval: 0.1) }
                pause = min(pause * 2, Self.longestReconnectPause)
            }
        }
    }
}
