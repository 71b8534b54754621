/// Why a CBOR input was rejected.
///
/// `code` is a stable identifier to match on; `reason` is a short sentence for logs.
/// Neither ever contains input bytes.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier, prefixed `cbor.`; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case empty = "cbor.empty"
            case truncated = "cbor.truncated"
            case malformed = "cbor.malformed"
            case trailingBytes = "cbor.trailingBytes"
            case duplicateMapKey = "cbor.duplicateMapKey"
            case depthExceeded = "cbor.depthExceeded"
            case tooManyItems = "cbor.tooManyItems"
            case tooLarge = "cbor.tooLarge"
            case invalidUTF8 = "cbor.invalidUTF8"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The input is empty.
        public static let empty = Code(.empty)
        /// The input ends inside an item, including a string longer than the bytes left.
        public static let truncated = Code(.truncated)
        /// An item uses a reserved or invalid encoding.
        public static let malformed = Code(.malformed)
        /// Bytes follow the data item.
        public static let trailingBytes = Code(.trailingBytes)
        /// A map holds the same key twice.
        public static let duplicateMapKey = Code(.duplicateMapKey)
        /// Containers are nested deeper than the limit.
        public static let depthExceeded = Code(.depthExceeded)
        /// The input holds more data items than the limit.
        public static let tooManyItems = Code(.tooManyItems)
        /// The input is over the size limit, or a container declares more entries than the bytes left could hold.
        public static let tooLarge = Code(.tooLarge)
        /// A text string is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)

        /// The wire and log form, e.g. `cbor.empty`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// A short human-readable sentence.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
