/// A storage failure. The reason never contains user data, tokens or keys.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable machine-readable code, one of the static codes below.
    public let code: String
    /// A human-readable explanation for logs and operators.
    public let reason: String

    /// Creates an error from a code and a reason.
    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The username is already taken by another user.
    public static let usernameTakenCode = "storage.usernameTaken"
    /// A credential with that ID already exists (for any user).
    public static let credentialExistsCode = "storage.credentialExists"
    /// A record the operation depends on does not exist.
    public static let notFoundCode = "storage.notFound"
    /// The storage backend failed: I/O error, busy beyond the timeout, corruption.
    public static let unavailableCode = "storage.unavailable"
    /// The database schema could not be brought to the expected version.
    public static let migrationFailedCode = "storage.migrationFailed"
    /// A randomly generated key (user handle, challenge, session token hash) is already stored.
    public static let duplicateKeyCode = "storage.duplicateKey"
    /// The Apple identity (`sub`) is already linked to an account.
    public static let appleIdentityTakenCode = "storage.appleIdentityTaken"
    /// The signature counter is not greater than the stored one (WebAuthn §7.2 step 23, checked at write time).
    public static let signCountNotIncreasedCode = "storage.signCountNotIncreased"
    /// An import needs an empty store and this one holds records.
    public static let notEmptyCode = "storage.notEmpty"

    /// The username is already taken.
    public static func usernameTaken() -> StorageError {
        StorageError(code: usernameTakenCode, reason: "the username is already taken")
    }

    /// A credential with that ID already exists.
    public static func credentialExists() -> StorageError {
        StorageError(code: credentialExistsCode, reason: "a credential with this ID already exists")
    }

    /// A record the operation depends on does not exist.
    public static func notFound(_ reason: String) -> StorageError {
        StorageError(code: notFoundCode, reason: reason)
    }

    /// The storage backend failed.
    public static func unavailable(_ reason: String) -> StorageError {
        StorageError(code: unavailableCode, reason: reason)
    }

    /// The schema migration failed.
    public static func migrationFailed(_ reason: String) -> StorageError {
        StorageError(code: migrationFailedCode, reason: reason)
    }

    /// A randomly generated key is already stored.
    public static func duplicateKey(_ reason: String) -> StorageError {
        StorageError(code: duplicateKeyCode, reason: reason)
    }

    /// The Apple identity is already linked to an account.
    public static func appleIdentityTaken() -> StorageError {
        StorageError(code: appleIdentityTakenCode, reason: "the Apple identity is already linked to an account")
    }

    /// The signature counter did not increase past the stored one.
    public static func signCountNotIncreased() -> StorageError {
        StorageError(code: signCountNotIncreasedCode, reason: "the signature counter did not increase past the stored one")
    }

    /// An import needs an empty store.
    public static func notEmpty(_ reason: String) -> StorageError {
        StorageError(code: notEmptyCode, reason: reason)
    }

    public var description: String { "\(code): \(reason)" }
}
