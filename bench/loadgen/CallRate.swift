import Foundation

/// Calls per second of one operation on this thread, the way `openssl speed` counts: 200 calls to warm up, then
/// batches of 100 until `seconds` have passed. The raw references (`RawVerifyRate`, `RawSignRate`) are measured with it.
enum CallRate {
    static func measure(seconds: Double, _ call: () -> Void) -> Double {
        for _ in 0..<200 { call() }
        let start = DispatchTime.now().uptimeNanoseconds
        var calls = 0
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<100 { call() }
            calls += 100
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < seconds * 1e9
        return Double(calls) / (Double(elapsed) / 1e9)
    }
}
