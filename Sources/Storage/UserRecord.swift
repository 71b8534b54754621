import Foundation

/// A registered account.
public struct UserRecord: Sendable, Equatable {
    /// The 32-byte WebAuthn user handle; the primary key.
    public var id: [UInt8]
    /// The username; unique across all users.
    public var name: String
    /// The name shown to the user by authenticators.
    public var displayName: String
    /// Whether `displayName` is a default the server chose (the username, an email's local part, "Apple user") rather
    /// than a name the person gave: a name that arrives later with Sign in with Apple replaces only a default.
    public var displayNameIsDefault: Bool
    /// A random UUID of the account, stable for its lifetime and unique across all users: what an app passes to
    /// StoreKit as `appAccountToken`. Never derived from the user handle.
    public var appAccountToken: UUID
    /// The account's email address, when it has one (from Sign in with Apple, or set by the app's backend).
    public var email: String?
    /// Whether `email` was verified by whoever gave it (Apple's `email_verified`); only verified addresses are compared
    /// for link suggestions.
    public var emailVerified: Bool
    /// When the account was created.
    public var createdAt: Date
    /// The app's own id of the person (its user system's primary key), when the app's backend gave one: unique across
    /// all users, at most `maximumExternalIDBytes`. What `tokens.subject: "externalId"` puts in `sub`.
    public var externalID: String?
    /// Whether an admin disabled the account: no session starts for it (`StorageError.userDisabled`), and disabling it
    /// ended the ones it had.
    public var disabled: Bool
    /// The app's own data on the account, a JSON object's text (at most `maximumMetadataBytes`), as the app's backend
    /// set it through the admin API; nil when it set none. The store keeps it as text; the server checks its shape.
    public var metadata: String?

    /// Creates a user record from its fields.
    public init(
        id: [UInt8],
        name: String,
        displayName: String,
        displayNameIsDefault: Bool = false,
        appAccountToken: UUID,
        email: String? = nil,
        emailVerified: Bool = false,
        createdAt: Date,
        externalID: String? = nil,
        disabled: Bool = false,
        metadata: String? = nil
    ) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.displayNameIsDefault = displayNameIsDefault
        self.appAccountToken = appAccountToken
        self.email = email
        self.emailVerified = emailVerified
        self.createdAt = createdAt
        self.externalID = externalID
        self.disabled = disabled
        self.metadata = metadata
    }

    /// The most bytes of `email` a store accepts.
    public static let maximumEmailBytes = 320

    /// The most bytes of `externalID` a store accepts.
    public static let maximumExternalIDBytes = 255

    /// The most bytes of `metadata` a store accepts.
    public static let maximumMetadataBytes = 4096

    /// Refuses a record no store keeps: an email, an external id or metadata over its bound, an empty external id. For drivers
    /// to check before they write.
    public func validate() throws(StorageError) {
        if let email, email.utf8.count > Self.maximumEmailBytes {
            throw StorageError(.invalidRecord, "an email address must be at most \(Self.maximumEmailBytes) bytes")
        }
        if let externalID, externalID.isEmpty || externalID.utf8.count > Self.maximumExternalIDBytes {
            throw StorageError(.invalidRecord, "an external id must be 1 to \(Self.maximumExternalIDBytes) bytes")
        }
        if let metadata, metadata.utf8.count > Self.maximumMetadataBytes {
            throw StorageError(.invalidRecord, "metadata must be at most \(Self.maximumMetadataBytes) bytes")
        }
    }
}
