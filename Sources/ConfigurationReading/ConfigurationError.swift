/// Invalid configuration: start-up stops with a message naming the key (or, for `passkeyd verify`, the option).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its log form (`configuration.invalidValue`) and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case unreadable = "configuration.unreadable"
            case invalidJSON = "configuration.invalidJSON"
            case unknownKey = "configuration.unknownKey"
            case missingValue = "configuration.missingValue"
            case invalidValue = "configuration.invalidValue"
            case invalidFile = "configuration.invalidFile"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A file the configuration is or names (the configuration, trust material, the Apple key) cannot be read.
        public static let unreadable = Code(.unreadable)
        /// The configuration file is not JSON.
        public static let invalidJSON = Code(.invalidJSON)
        /// A key passkeyd does not know (a typo must not silently fall back to a default).
        public static let unknownKey = Code(.unknownKey)
        /// A required key is absent.
        public static let missingValue = Code(.missingValue)
        /// A value of the wrong type, outside its range, or not of its form.
        public static let invalidValue = Code(.invalidValue)
        /// A file that was read holds something unusable (a certificate, a name list, the metadata BLOB, a key).
        public static let invalidFile = Code(.invalidFile)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// The configuration key at fault (`relyingParty.id`, `attestation.metadata.file`, or a command-line option such
    /// as `--metadata`); empty for the configuration as a whole.
    public let key: String
    /// Detail for the operator; never a secret.
    public let reason: String

    public init(_ code: Code, key: String, _ reason: String) {
        self.code = code
        self.key = key
        self.reason = reason
    }

    public var description: String { key.isEmpty ? reason : "\(key): \(reason)" }
}
