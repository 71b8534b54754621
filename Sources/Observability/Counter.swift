import Synchronization

/// One counter series: lock-free increments (a relaxed atomic add), read at scrape time.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    init() {}

    public func increment(by amount: Int = 1) {
        count.add(amount, ordering: .relaxed)
    }

    public var value: Int { count.load(ordering: .relaxed) }
}
