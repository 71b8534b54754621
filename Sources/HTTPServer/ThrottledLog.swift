import Observability
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Log lines about what a flood causes (accept failures, connections refused or closed at a cap), at most one per
/// topic per interval for the whole server, so that an attack costs the log a few lines instead of one per
/// connection; the next line says how many were held back.
final class ThrottledLog: Sendable {
    private struct Topic {
        var lastWritten: Int
        var heldBack = 0
    }

    private let interval: Int
    private let log: Logger
    private let topics = Mutex<[String: Topic]>([:])

    /// `interval` in seconds; `log` is the server's (the lines are warnings of event `connections`).
    init(interval: Int, log: Logger) {
        self.interval = interval
        self.log = log
    }

    /// Writes `message` unless a line of `topic` was written less than the interval before `now` (seconds on any
    /// monotonic clock); then it is counted and mentioned with the next line of that topic.
    func note(_ topic: String, _ message: String, now: Int) {
        let line: String? = topics.withLock { topics in
            if var known = topics[topic], now - known.lastWritten < interval {
                known.heldBack += 1
                topics[topic] = known
                return nil
            }
            let heldBack = topics[topic]?.heldBack ?? 0
            topics[topic] = Topic(lastWritten: now)
            return heldBack == 0 ? message : "\(message) (and \(heldBack) more since the last report)"
        }
        line.map { log.warning($0, event: "connections") }
    }

    /// Seconds on the monotonic clock.
    static var now: Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec
    }
}
