/// The body of `POST /admin/users` (a `username` is required) and `PATCH /admin/users/{id}` (absent members are left
/// as they are; `"email": ""` removes the email, `"externalId": ""` the external id).
public struct AdminUserChange: Codable, Sendable, Equatable {
    public var username: String?
    public var displayName: String?
    public var email: String?
    /// Whether the app's backend verified `email`; false when absent with a new email.
    public var emailVerified: Bool?
    /// The app's own id of the person (`UserRecord.externalID`): `POST /admin/users` is idempotent by it.
    public var externalId: String?

    public init(
        username: String? = nil,
        displayName: String? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        externalId: String? = nil
    ) {
        self.username = username
        self.displayName = displayName
        self.email = email
        self.emailVerified = emailVerified
        self.externalId = externalId
    }
}
