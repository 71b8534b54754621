import CSQLite
import Storage

/// A failed SQLite call, in the shape of every module's error: a stable `code` and a `reason`. Carries no SQL values:
/// the reason names the operation and SQLite's result, and `constraint` the schema names SQLite reports for a
/// uniqueness violation (such as "users.name").
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its log form (`sqlite.busy`).
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case uniqueViolation = "sqlite.uniqueViolation"
            case foreignKeyViolation = "sqlite.foreignKeyViolation"
            case busy = "sqlite.busy"
            case full = "sqlite.full"
            case readOnly = "sqlite.readOnly"
            case cannotOpen = "sqlite.cannotOpen"
            case corrupt = "sqlite.corrupt"
            case failed = "sqlite.failed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A UNIQUE or PRIMARY KEY constraint failed; `constraint` names the column.
        static let uniqueViolation = Code(.uniqueViolation)
        /// A FOREIGN KEY constraint failed (a row names a user that does not exist).
        static let foreignKeyViolation = Code(.foreignKeyViolation)
        /// Another connection held the lock beyond the busy timeout.
        static let busy = Code(.busy)
        /// The disk (or `max_page_count`) is full (SQLITE_FULL).
        static let full = Code(.full)
        /// The database cannot be written: a read-only file or folder, or `query_only` (SQLITE_READONLY).
        static let readOnly = Code(.readOnly)
        /// The database file cannot be opened (SQLITE_CANTOPEN).
        static let cannotOpen = Code(.cannotOpen)
        /// The database holds something this build cannot read.
        static let corrupt = Code(.corrupt)
        /// Any other failure of SQLite.
        static let failed = Code(.failed)

        var rawValue: String { base.rawValue }
        var description: String { rawValue }
        static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    let code: Code
    let reason: String
    /// For a uniqueness violation, SQLite's table and column ("users.name"); otherwise empty.
    let constraint: String

    init(_ code: Code, _ reason: String, constraint: String = "") {
        self.code = code
        self.reason = reason
        self.constraint = constraint
    }

    /// The failure SQLite reported for `operation`: its extended result code and, for a constraint, its message.
    static func failure(_ operation: String, resultCode: Int32, connection: OpaquePointer?) -> SQLiteError {
        let reason = "SQLite \(operation) failed: \(String(cString: sqlite3_errstr(resultCode))) (code \(resultCode))"
        switch resultCode {
        case foreignKeyViolation:
            return SQLiteError(.foreignKeyViolation, reason)
        case uniqueViolation, primaryKeyViolation:
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? ""
            return SQLiteError(.uniqueViolation, reason, constraint: message)
        default:
            switch resultCode & 0xff {
            case SQLITE_BUSY, SQLITE_LOCKED: return SQLiteError(.busy, reason)
            case SQLITE_FULL: return SQLiteError(.full, reason)
            case SQLITE_READONLY: return SQLiteError(.readOnly, reason)
            case SQLITE_CANTOPEN: return SQLiteError(.cannotOpen, reason)
            case SQLITE_CORRUPT, SQLITE_NOTADB: return SQLiteError(.corrupt, reason)
            default: return SQLiteError(.failed, reason)
            }
        }
    }

    /// The same failure as a `StorageError`, mapping constraint violations to the contract's codes.
    var storageError: StorageError {
        switch code {
        case .foreignKeyViolation:
            return StorageError(.notFound, "the user (or the grant) does not exist")
        case .uniqueViolation:
            if constraint.hasSuffix("users.name") || constraint.hasSuffix("users.name_key") {
                return StorageError(.usernameTaken, "the username is already taken")
            }
            if constraint.hasSuffix("users.external_id") {
                return StorageError(.externalIDTaken, "another account has this external id")
            }
            if constraint.hasSuffix("credentials.id") { return StorageError(.credentialExists, "a credential with this ID already exists") }
            if constraint.hasSuffix("apple_identities.subject") {
                return StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            }
            if constraint.hasSuffix("federated_identities.subject") {
                return StorageError(.federatedIdentityTaken, "the identity is already linked to an account")
            }
            if constraint.hasSuffix("users.app_account_token") {
                return StorageError(.duplicateKey, "a user with this app account token already exists")
            }
            if constraint.hasSuffix("apple_identities.transfer_subject") {
                return StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            }
            if constraint.hasSuffix("users.id") { return StorageError(.duplicateKey, "a user with this ID already exists") }
            if constraint.hasSuffix("challenges.challenge") {
                return StorageError(.duplicateKey, "a challenge with these bytes already exists")
            }
            if constraint.hasSuffix("sessions.token_hash") {
                return StorageError(.duplicateKey, "a session with this token hash already exists")
            }
            if constraint.hasSuffix("sessions.id") { return StorageError(.duplicateKey, "a session with this ID already exists") }
            if constraint.hasSuffix("email_tokens.token_hash") { return StorageError(.duplicateKey, "an email token with this hash already exists") }
            if constraint.hasSuffix("enrollment_tokens.token_hash") {
                return StorageError(.duplicateKey, "an enrollment link with this token hash already exists")
            }
            if constraint.hasSuffix("events.uuid") { return StorageError(.duplicateKey, "an event with this ID already exists") }
            if constraint.hasSuffix("signing_keys.id") { return StorageError(.duplicateKey, "a signing key with this ID already exists") }
            if constraint.hasSuffix("oauth_codes.code_hash") {
                return StorageError(.duplicateKey, "an authorization code with this hash already exists")
            }
            if constraint.hasSuffix("oauth_grants.id") { return StorageError(.duplicateKey, "a grant with this ID already exists") }
            if constraint.hasSuffix("oauth_refresh_tokens.token_hash") {
                return StorageError(.duplicateKey, "a refresh token with this hash already exists")
            }
            return StorageError(.unavailable, "\(reason): unexpected uniqueness violation")
        default:
            return StorageError(.unavailable, reason, outage: outage)
        }
    }

    /// What failed, for a failure that makes the store unavailable: nil for the others (corruption, I/O, misuse).
    var outage: StorageError.Outage? {
        switch code {
        case .full: .noSpace
        case .readOnly: .readOnly
        case .busy: .timedOut
        case .cannotOpen: .unreachable
        default: nil
        }
    }

    var description: String { "\(code): \(reason)" }

    // Extended result codes; the C macros are shift expressions Swift doesn't import.
    private static let foreignKeyViolation = SQLITE_CONSTRAINT | (3 << 8)
    private static let primaryKeyViolation = SQLITE_CONSTRAINT | (6 << 8)
    private static let uniqueViolation = SQLITE_CONSTRAINT | (8 << 8)
}
