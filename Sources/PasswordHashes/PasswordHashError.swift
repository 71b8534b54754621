/// The one error type of PasswordHashes: a stable machine `code` and a human `reason` that never contains a password,
/// a salt or a hash.
public struct PasswordHashError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case malformed = "password.malformed"
            case unsupportedAlgorithm = "password.unsupportedAlgorithm"
            case parametersOutOfBounds = "password.parametersOutOfBounds"
            case internalFailure = "password.internal"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The text is not a hash of any format passkeyd reads (a PHC string, bcrypt's, Django's), or a part of it is
        /// not what its format says.
        public static let malformed = Code(.malformed)
        /// The format names an algorithm passkeyd does not verify (`$1$` MD5-crypt, `sha1` PBKDF2 of Django …).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// A work factor, a salt or a hash length outside the bounds (`PasswordHashLimits`): absurd costs are refused at
        /// import, so that no sign-in can be made to run one.
        public static let parametersOutOfBounds = Code(.parametersOutOfBounds)
        /// The library that computes the hash failed.
        public static let internalFailure = Code(.internalFailure)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
