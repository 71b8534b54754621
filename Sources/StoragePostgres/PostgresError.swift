import CLibPQ
import Foundation
import Storage

/// A failed libpq call, in the shape of every module's error: a stable `code` and a `reason`. Carries no SQL values:
/// the reason holds the operation, the server's primary message (never the DETAIL, which can hold values) and the
/// SQLSTATE; `constraint` the name of a violated constraint (such as "users_name_unique").
struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its log form (`postgres.serializationFailure`).
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case connectionFailed = "postgres.connectionFailed"
            case uniqueViolation = "postgres.uniqueViolation"
            case foreignKeyViolation = "postgres.foreignKeyViolation"
            case serializationFailure = "postgres.serializationFailure"
            case diskFull = "postgres.diskFull"
            case readOnly = "postgres.readOnly"
            case timedOut = "postgres.timedOut"
            case decodingFailed = "postgres.decodingFailed"
            case failed = "postgres.failed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The connection can't be trusted any more: the server went away (SQLSTATE class 08, 57P), refused more
        /// connections (53300), or never answered.
        static let connectionFailed = Code(.connectionFailed)
        /// A UNIQUE or PRIMARY KEY constraint failed (23505); `constraint` names it.
        static let uniqueViolation = Code(.uniqueViolation)
        /// A FOREIGN KEY constraint failed (23503).
        static let foreignKeyViolation = Code(.foreignKeyViolation)
        /// The transaction could not be serialised (40001) or was chosen to break a deadlock (40P01): running it
        /// again from the start may succeed.
        static let serializationFailure = Code(.serializationFailure)
        /// The server's disk is full (53100 disk_full).
        static let diskFull = Code(.diskFull)
        /// The server takes no writes: a standby, or `default_transaction_read_only` (25006).
        static let readOnly = Code(.readOnly)
        /// A statement or lock timeout ran out (57014 query_canceled, 55P03 lock_not_available).
        static let timedOut = Code(.timedOut)
        /// A result this build cannot read.
        static let decodingFailed = Code(.decodingFailed)
        /// Any other failure reported by the server.
        static let failed = Code(.failed)

        var rawValue: String { base.rawValue }
        var description: String { rawValue }
        static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    let code: Code
    let reason: String
    /// For a uniqueness violation, the constraint's name; otherwise empty.
    let constraint: String

    init(_ code: Code, _ reason: String, constraint: String = "") {
        self.code = code
        self.reason = reason
        self.constraint = constraint
    }

    /// The failure of `operation` from its result (or from the connection when there is no result).
    static func failure(_ operation: String, result: OpaquePointer?, connection: OpaquePointer?) -> PostgresError {
        let sqlState = result.map { field($0, "C") } ?? ""
        let primary = result.map { field($0, "M") } ?? ""
        let message = primary.isEmpty ? connectionMessage(connection) : primary
        let reason = "PostgreSQL \(operation) failed: \(message)\(sqlState.isEmpty ? "" : " (SQLSTATE \(sqlState))")"
        switch sqlState {
        case "23505": return PostgresError(.uniqueViolation, reason, constraint: result.map { field($0, "n") } ?? "")
        case "23503": return PostgresError(.foreignKeyViolation, reason)
        case "40001", "40P01": return PostgresError(.serializationFailure, reason)
        case "53100": return PostgresError(.diskFull, reason)
        case "25006": return PostgresError(.readOnly, reason)
        case "57014", "55P03": return PostgresError(.timedOut, reason)
        case "", "53300": return PostgresError(.connectionFailed, reason)
        case let state where state.hasPrefix("08") || state.hasPrefix("57P"): return PostgresError(.connectionFailed, reason)
        default: return PostgresError(.failed, reason)
        }
    }

    /// The same failure as a `StorageError`, mapping constraint violations to the contract's codes.
    var storageError: StorageError {
        switch code {
        case .foreignKeyViolation:
            return StorageError(.notFound, "the user (or the grant) does not exist")
        case .uniqueViolation:
            switch constraint {
            case "users_name_unique", "users_name_key_unique": return StorageError(.usernameTaken, "the username is already taken")
            case "users_external_id_unique": return StorageError(.externalIDTaken, "another account has this external id")
            case "credentials_pkey": return StorageError(.credentialExists, "a credential with this ID already exists")
            case "apple_identities_pkey": return StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            case "federated_identities_pkey": return StorageError(.federatedIdentityTaken, "the identity is already linked to an account")
            case "users_pkey": return StorageError(.duplicateKey, "a user with this ID already exists")
            case "users_app_account_token_unique": return StorageError(.duplicateKey, "a user with this app account token already exists")
            case "apple_identities_transfer_subject_unique":
                return StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            case "challenges_pkey": return StorageError(.duplicateKey, "a challenge with these bytes already exists")
            case "sessions_pkey": return StorageError(.duplicateKey, "a session with this token hash already exists")
            case "sessions_id_unique": return StorageError(.duplicateKey, "a session with this ID already exists")
            case "email_tokens_pkey": return StorageError(.duplicateKey, "an email token with this hash already exists")
            case "enrollment_tokens_pkey": return StorageError(.duplicateKey, "an enrollment link with this token hash already exists")
            case "events_uuid_unique": return StorageError(.duplicateKey, "an event with this ID already exists")
            case "signing_keys_pkey": return StorageError(.duplicateKey, "a signing key with this ID already exists")
            case "oauth_codes_pkey": return StorageError(.duplicateKey, "an authorization code with this hash already exists")
            case "oauth_grants_pkey": return StorageError(.duplicateKey, "a grant with this ID already exists")
            case "oauth_refresh_tokens_pkey": return StorageError(.duplicateKey, "a refresh token with this hash already exists")
            default: return StorageError(.unavailable, "\(reason): unexpected uniqueness violation")
            }
        default:
            return StorageError(.unavailable, reason, outage: outage)
        }
    }

    /// What failed, for a failure that makes the store unavailable: nil for the others.
    var outage: StorageError.Outage? {
        switch code {
        case .diskFull: .noSpace
        case .readOnly: .readOnly
        case .timedOut: .timedOut
        case .connectionFailed: .unreachable
        default: nil
        }
    }

    var description: String { "\(code): \(reason)" }

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
