/// A failure to set up the HTTP server (`http.*`). The outbound client's failures are `HTTPClientError`.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case bindFailed = "http.bindFailed"
            case invalidAddress = "http.invalidAddress"
            case eventLoopFailed = "http.eventLoopFailed"
            case invalidConfiguration = "http.invalidConfiguration"
            case connectFailed = "http.connectFailed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A listening socket cannot be bound.
        public static let bindFailed = Code(.bindFailed)
        /// A listen address is not `host:port`.
        public static let invalidAddress = Code(.invalidAddress)
        /// An event loop cannot be created or started.
        public static let eventLoopFailed = Code(.eventLoopFailed)
        /// The server configuration is inconsistent.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A loopback socket cannot connect.
        public static let connectFailed = Code(.connectFailed)

        /// The wire and log form, e.g. `http.bindFailed`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// A human-readable explanation.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
