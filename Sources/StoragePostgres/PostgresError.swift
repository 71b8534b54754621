import CLibPQ
import Foundation
import Storage

/// A failed libpq call. Carries no SQL values: the operation, the SQLSTATE, the server's primary message and,
/// for constraint violations, the constraint's name (such as "users_name_unique").
struct PostgresError: Error {
    /// What the store was doing, such as "connect", "prepare" or "execute".
    let operation: String
    /// The five-character SQLSTATE; empty when the failure happened before the server answered.
    let sqlState: String
    /// The name of the violated constraint, or empty.
    let constraint: String
    /// The server's or libpq's primary message (never the DETAIL, which can hold values).
    let message: String

    /// The failure from a result (or from the connection when there is no result).
    init(operation: String, result: OpaquePointer?, connection: OpaquePointer?) {
        self.operation = operation
        if let result {
            sqlState = Self.field(result, "C")
            constraint = Self.field(result, "n")
            let primary = Self.field(result, "M")
            message = primary.isEmpty ? Self.connectionMessage(connection) : primary
        } else {
            sqlState = ""
            constraint = ""
            message = Self.connectionMessage(connection)
        }
    }

    init(operation: String, message: String) {
        self.operation = operation
        sqlState = ""
        constraint = ""
        self.message = message
    }

    static func decoding(_ message: String) -> PostgresError {
        PostgresError(operation: "decode", message: message)
    }

    /// Whether the connection can't be trusted any more: the server went away, or it never answered.
    var isConnectionFailure: Bool {
        (sqlState.isEmpty && operation != "decode") || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState == "53300"
    }

    /// The same failure as a `StorageError`, mapping constraint violations to the contract's codes.
    var storageError: StorageError {
        switch sqlState {
        case "23503":
            return .notFound("the user does not exist")
        case "23505":
            switch constraint {
            case "users_name_unique": return .usernameTaken()
            case "credentials_pkey": return .credentialExists()
            case "apple_identities_pkey": return .appleIdentityTaken()
            case "users_pkey": return .duplicateKey("a user with this ID already exists")
            case "challenges_pkey": return .duplicateKey("a challenge with these bytes already exists")
            case "sessions_pkey": return .duplicateKey("a session with this token hash already exists")
            default: return .unavailable("PostgreSQL \(operation) failed: unexpected uniqueness violation")
            }
        default:
            let state = sqlState.isEmpty ? "" : " (SQLSTATE \(sqlState))"
            return .unavailable("PostgreSQL \(operation) failed: \(message)\(state)")
        }
    }

    private static func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String {
        guard let value = PQresultErrorField(result, Int32(code.value)) else { return "" }
        return String(cString: value)
    }

    private static func connectionMessage(_ connection: OpaquePointer?) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return "no answer from the server" }
        let lines = String(cString: text).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "no answer from the server" : lines.joined(separator: "; ")
    }
}
