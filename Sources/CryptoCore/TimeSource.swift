import Foundation

/// Where the current time comes from. Injected so that verification is reproducible (test vectors pin a time).
public protocol TimeSource: Sendable {
    var now: Date { get }
}

/// The system clock.
public struct SystemTime: TimeSource {
    public init() {}
    public var now: Date { Date() }
}

/// A clock that always reads the same instant.
public struct FixedTime: TimeSource {
    public let now: Date
    public init(_ now: Date) { self.now = now }
}
