/// The one error type of UserImport: a stable machine `code`, the member of the file at fault (never its value), the
/// line (or the user's position in a file of users, from 1) when there is one, and a `reason` for the log that never
/// contains a password hash, a key or an address.
public struct UserImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its log form and never changes. The server answers each with its own client code
    /// (`import_invalid`, `unknown_member`, `invalid_username`, `invalid_request`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case invalid = "import.invalid"
            case unknownMember = "import.unknownMember"
            case usernameRefused = "import.usernameRefused"
            case valueRefused = "import.valueRefused"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file, a line or a member is not of the format, or out of its bounds.
        public static let invalid = Code(.invalid)
        /// A line of passkeyd's export has a member its type does not take (a misspelling, a newer release's).
        public static let unknownMember = Code(.unknownMember)
        /// A line's username is one the account rules refuse (`AccountFieldRules.name`).
        public static let usernameRefused = Code(.usernameRefused)
        /// Another name or an email address the account rules refuse.
        public static let valueRefused = Code(.valueRefused)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// The member at fault (`publicKey`, `user_id`), when one is named.
    public let member: String?
    /// The line (NDJSON) or the user's position in the file (JSON), from 1, when known.
    public private(set) var line: Int?
    public let reason: String?

    public init(_ code: Code, member: String? = nil, reason: String? = nil) {
        self.code = code
        self.member = member
        self.reason = reason
    }

    /// The error with the line it is about.
    public func onLine(_ number: Int) -> UserImportError {
        var error = self
        error.line = number
        return error
    }

    public var description: String {
        "\(code)" + (member.map { " (\($0))" } ?? "") + (line.map { " on line \($0)" } ?? "") + (reason.map { ": \($0)" } ?? "")
    }
}
