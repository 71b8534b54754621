import Testing

/// One row of the §7.2 step 23 signature counter rules: the stored and received counters, and the verdict.
struct SignCountRule: Sendable, CustomTestStringConvertible {
    let stored: UInt32
    let received: UInt32
    let accepted: Bool

    var testDescription: String { "stored \(stored), received \(received): \(accepted ? "accepted" : "refused")" }
}
