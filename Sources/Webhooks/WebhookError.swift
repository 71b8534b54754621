/// Why a webhook delivery attempt failed or was given up, as recorded in the store (`WebhookDeliveryRecord.lastError`)
/// and logged. A failure without a reply records the outbound client's code instead (`http.clientTimeout` …).
public struct WebhookError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its stored and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case unexpectedStatus = "webhook.unexpectedStatus"
            case gone = "webhook.gone"
            case endpointRemoved = "webhook.endpointRemoved"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The endpoint answered with a status other than 2xx (a redirect included: redirects are never followed).
        static let unexpectedStatus = Code(.unexpectedStatus)
        /// The endpoint answered 410 Gone: it wants no more deliveries, so this one is given up at once.
        static let gone = Code(.gone)
        /// The endpoint is no longer configured: its pending deliveries were given up at start-up.
        public static let endpointRemoved = Code(.endpointRemoved)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
