/// A storage failure: a stable `code` and a `reason` for logs and operators. The reason never contains user data,
/// tokens or keys.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form (`storage.usernameTaken`) and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case usernameTaken = "storage.usernameTaken"
            case credentialExists = "storage.credentialExists"
            case notFound = "storage.notFound"
            case unavailable = "storage.unavailable"
            case migrationFailed = "storage.migrationFailed"
            case migrationRefused = "storage.migrationRefused"
            case duplicateKey = "storage.duplicateKey"
            case appleIdentityTaken = "storage.appleIdentityTaken"
            case externalIDTaken = "storage.externalIdTaken"
            case federatedIdentityTaken = "storage.federatedIdentityTaken"
            case signCountNotIncreased = "storage.signCountNotIncreased"
            case notEmpty = "storage.notEmpty"
            case invalidRecord = "storage.invalidRecord"
            case challengeSpent = "storage.challengeSpent"
            case userDisabled = "storage.userDisabled"
            case credentialChanged = "storage.credentialChanged"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The username is already taken by another user.
        public static let usernameTaken = Code(.usernameTaken)
        /// A credential with that ID already exists (for any user).
        public static let credentialExists = Code(.credentialExists)
        /// A record the operation depends on does not exist.
        public static let notFound = Code(.notFound)
        /// The storage backend failed: I/O error, busy beyond the timeout, corruption, a transaction that could not
        /// be serialised after its retries.
        public static let unavailable = Code(.unavailable)
        /// The database schema could not be brought to the expected version.
        public static let migrationFailed = Code(.migrationFailed)
        /// A schema step would break the nodes of the previous release still running on the database, and the
        /// operator did not allow it.
        public static let migrationRefused = Code(.migrationRefused)
        /// A randomly generated key (user handle, challenge, session token hash or ID) is already stored.
        public static let duplicateKey = Code(.duplicateKey)
        /// The Apple identity (`sub`) is already linked to an account.
        public static let appleIdentityTaken = Code(.appleIdentityTaken)
        /// Another user has that external id (`UserRecord.externalID`).
        public static let externalIDTaken = Code(.externalIDTaken)
        /// The identity at an OpenID provider (`iss`, `sub`) is already linked to an account.
        public static let federatedIdentityTaken = Code(.federatedIdentityTaken)
        /// The signature counter is not greater than the stored one (WebAuthn §7.2 step 23, checked at write time).
        public static let signCountNotIncreased = Code(.signCountNotIncreased)
        /// An import needs an empty store and this one holds records.
        public static let notEmpty = Code(.notEmpty)
        /// A record breaks a bound of the contract (an event's type or payload size, a session's user agent or ID).
        public static let invalidRecord = Code(.invalidRecord)
        /// The challenge a ceremony spends is stored already: it was used before.
        public static let challengeSpent = Code(.challengeSpent)
        /// A session was to start for a disabled user (`UserRecord.disabled`).
        public static let userDisabled = Code(.userDisabled)
        /// The stored credential is not the one a sign-in was verified against (`SignInExpectation`): deleted, moved to
        /// another user, or stored again with another key, backup eligibility or user handle.
        public static let credentialChanged = Code(.credentialChanged)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    /// What made the backend unavailable, as far as the driver could tell from its error; `rawValue` is its log form.
    public enum Outage: String, Sendable, CaseIterable {
        /// The disk is full (SQLite's SQLITE_FULL; PostgreSQL's 53100 disk_full).
        case noSpace
        /// The database takes no writes (SQLITE_READONLY; PostgreSQL's 25006 read_only_sql_transaction).
        case readOnly
        /// A wait ran out: a lock held beyond SQLite's busy timeout (SQLITE_BUSY), PostgreSQL's statement or lock
        /// timeout (57014 query_canceled, 55P03 lock_not_available), no pooled connection in time.
        case timedOut
        /// The database could not be reached: a connection failed, was refused or was lost.
        case unreachable
    }

    /// The stable code.
    public let code: Code
    /// A human-readable explanation for logs and operators.
    public let reason: String
    /// For `unavailable`, what failed, when the driver could tell; nil otherwise.
    public let outage: Outage?

    /// Creates an error from a code, a reason and, for `unavailable`, what failed.
    public init(_ code: Code, _ reason: String, outage: Outage? = nil) {
        self.code = code
        self.reason = reason
        self.outage = outage
    }

    public var description: String { "\(code)\(outage.map { " (\($0.rawValue))" } ?? ""): \(reason)" }
}
