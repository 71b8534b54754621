import JSON

/// The body of `POST /admin/users` (a `username` is required) and `PATCH /admin/users/{id}` (absent members are left
/// as they are; `"email": ""` removes the email, `"externalId": ""` the external id, `"metadata": {}` the metadata).
public struct AdminUserChange: Codable, Sendable, Equatable {
    public var username: String?
    public var displayName: String?
    public var email: String?
    /// Whether the app's backend verified `email`; false when absent with a new email.
    public var emailVerified: Bool?
    /// The app's own id of the person (`UserRecord.externalID`): `POST /admin/users` is idempotent by it.
    public var externalId: String?
    /// `PATCH` only: true disables the account, false enables it (`UserRecord.disabled`).
    public var disabled: Bool?
    /// The app's own data on the account, replaced whole (`UserMetadata`).
    public var metadata: JSONValue?

    public init(
        username: String? = nil,
        displayName: String? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        externalId: String? = nil,
        disabled: Bool? = nil,
        metadata: JSONValue? = nil
    ) {
        self.username = username
        self.displayName = displayName
        self.email = email
        self.emailVerified = emailVerified
        self.externalId = externalId
        self.disabled = disabled
        self.metadata = metadata
    }
}
