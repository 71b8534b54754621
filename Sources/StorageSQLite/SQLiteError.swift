import CSQLite
import Storage

/// A failed SQLite call. Carries no SQL values: only the operation, the result code and, for constraint
/// violations, the schema names SQLite reports (such as "users.name").
struct SQLiteError: Error {
    /// What the store was doing, such as "prepare" or "step".
    let operation: String
    /// The extended SQLite result code.
    let code: Int32
    /// For constraint violations, SQLite's message naming the table and column; otherwise empty.
    let constraint: String

    init(operation: String, code: Int32, connection: OpaquePointer?) {
        self.operation = operation
        self.code = code
        if code & 0xff == SQLITE_CONSTRAINT, let connection, let message = sqlite3_errmsg(connection) {
            constraint = String(cString: message)
        } else {
            constraint = ""
        }
    }

    /// The same failure as a `StorageError`, mapping constraint violations to the contract's codes.
    var storageError: StorageError {
        switch code {
        case SQLiteError.foreignKeyViolation:
            return .notFound("the user does not exist")
        case SQLiteError.uniqueViolation, SQLiteError.primaryKeyViolation:
            if constraint.hasSuffix("users.name") { return .usernameTaken() }
            if constraint.hasSuffix("credentials.id") { return .credentialExists() }
            if constraint.hasSuffix("apple_identities.subject") { return .appleIdentityTaken() }
            if constraint.hasSuffix("users.id") { return .duplicateKey("a user with this ID already exists") }
            if constraint.hasSuffix("challenges.challenge") {
                return .duplicateKey("a challenge with these bytes already exists")
            }
            if constraint.hasSuffix("sessions.token_hash") {
                return .duplicateKey("a session with this token hash already exists")
            }
            return .unavailable("SQLite \(operation) failed: unexpected uniqueness violation")
        default:
            return .unavailable("SQLite \(operation) failed: \(String(cString: sqlite3_errstr(code))) (code \(code))")
        }
    }

    // Extended result codes; the C macros are shift expressions Swift doesn't import.
    private static let foreignKeyViolation = SQLITE_CONSTRAINT | (3 << 8)
    private static let primaryKeyViolation = SQLITE_CONSTRAINT | (6 << 8)
    private static let uniqueViolation = SQLITE_CONSTRAINT | (8 << 8)
}
