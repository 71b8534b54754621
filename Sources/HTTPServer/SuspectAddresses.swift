import Synchronization

/// The client addresses with recent refusals (`SuspectLane`), in a table of bounded size shared by the event loops
/// and the workers.
///
/// Two generations of at most half of `maximumAddresses` each: a refusal goes into the current one (moving the
/// address's record out of the previous one); when the current generation is full, or `seconds` have passed since it
/// began, it becomes the previous one and the old previous one is dropped. An address is looked up in both, so a record
/// lives at least `seconds` (unless a flood from more addresses than the table holds pushes it out sooner), and every
/// insertion and lookup costs O(1).
final class SuspectAddresses: Sendable {
    private struct Record {
        var refusals: Int
        var last: Int
    }

    private struct Generations {
        var current: [String: Record] = [:]
        var previous: [String: Record] = [:]
        var began: Int
    }

    private let lane: SuspectLane
    private let generations: Mutex<Generations>

    init(_ lane: SuspectLane, now: Int) {
        self.lane = lane
        generations = Mutex(Generations(began: now))
    }

    /// Counts a refusal of `address` at `now` (seconds on the monotonic clock). A generation dropped by a rotation (up
    /// to half the table) is freed after the lock is released, so the event loops that look addresses up meanwhile
    /// do not wait for it.
    func noteRefusal(_ address: String, now: Int) {
        let dropped = generations.withLock { tables -> (due: [String: Record], full: [String: Record]) in
            let due = rotateIfDue(&tables, now: now)
            var record = tables.current[address] ?? tables.previous.removeValue(forKey: address) ?? Record(refusals: 0, last: now)
            if now - record.last > lane.seconds { record.refusals = 0 }
            record.refusals = min(record.refusals + 1, lane.refusals)
            record.last = now
            tables.current[address] = record
            let full = tables.current.count >= max(1, lane.maximumAddresses / 2) ? rotate(&tables, now: now) : [:]
            return (due, full)
        }
        withExtendedLifetime(dropped) {}
    }

    /// Whether `address` had `refusals` refusals, the last of them within `seconds` of `now`.
    func isSuspect(_ address: String, now: Int) -> Bool {
        generations.withLock { tables in
            guard let record = tables.current[address] ?? tables.previous[address] else { return false }
            return record.refusals >= lane.refusals && now - record.last <= lane.seconds
        }
    }

    /// The addresses remembered now, suspects or not yet (at most `maximumAddresses`).
    var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    /// The addresses that are suspects at `now`.
    func suspectCount(now: Int) -> Int {
        generations.withLock { tables in
            let isSuspect = { (record: Record) in record.refusals >= self.lane.refusals && now - record.last <= self.lane.seconds }
            let current = tables.current.values.count(where: isSuspect)
            let previous = tables.previous.count { tables.current[$0.key] == nil && isSuspect($0.value) }
            return current + previous
        }
    }

    /// Rotates when the current generation is `seconds` old; returns the dropped generation (empty if none).
    private func rotateIfDue(_ tables: inout Generations, now: Int) -> [String: Record] {
        now - tables.began >= lane.seconds ? rotate(&tables, now: now) : [:]
    }

    /// Makes the current generation the previous one; returns the one dropped, for the caller to free unlocked.
    private func rotate(_ tables: inout Generations, now: Int) -> [String: Record] {
        let dropped = tables.previous
        tables.previous = tables.current
        tables.current = [:]
        tables.began = now
        return dropped
    }
}
