import Foundation

/// The tests that hold thousands of connections in this process at once take turns: two of them side by side (the
/// idle-connection reaping test's 2,000 and the per-address flood's 10,050, with their servers' ends) made TLS
/// handshakes of the first fail with a reset on CI's machine, while each passes alone every time.
public enum DescriptorHeavyTests {
    private static let turn = NSLock()

    /// Runs `body` while no other descriptor-heavy test runs.
    public static func oneAtATime<Result>(_ body: () throws -> Result) rethrows -> Result {
        turn.lock()
        defer { turn.unlock() }
        return try body()
    }
}
