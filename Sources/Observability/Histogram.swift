import Synchronization

/// One histogram series: the count of observations at or below each upper bound, their sum and count. One short
/// uncontended lock per observation (each route has its own series).
public final class Histogram: Sendable {
    struct State {
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0
    }

    let upperBounds: [Double]
    private let state: Mutex<State>

    init(upperBounds: [Double]) {
        self.upperBounds = upperBounds
        state = Mutex(State(bucketCounts: Array(repeating: 0, count: upperBounds.count)))
    }

    public func observe(_ value: Double) {
        let index = upperBounds.firstIndex { value <= $0 }
        state.withLock { state in
            if let index { state.bucketCounts[index] += 1 }
            state.sum += value
            state.count += 1
        }
    }

    /// The cumulative bucket counts (one per upper bound), the sum and the count, read together.
    var snapshot: (cumulative: [Int], sum: Double, count: Int) {
        state.withLock { state in
            var running = 0
            let cumulative = state.bucketCounts.map { count in
                running += count
                return running
            }
            return (cumulative, state.sum, state.count)
        }
    }
}
