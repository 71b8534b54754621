/// Invalid configuration: start-up stops with a message naming the key.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { key.isEmpty ? reason : "\(key): \(reason)" }
}
