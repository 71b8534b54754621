/// The body of `POST /admin/users` (a `username` is required) and `PATCH /admin/users/{id}` (absent members are left
/// as they are; `"email": ""` removes the email).
public struct AdminUserChange: Codable, Sendable, Equatable {
    public var username: String?
    public var displayName: String?
    public var email: String?
    /// Whether the app's backend verified `email`; false when absent with a new email.
    public var emailVerified: Bool?

    public init(username: String? = nil, displayName: String? = nil, email: String? = nil, emailVerified: Bool? = nil) {
        self.username = username
        self.displayName = displayName
        self.email = email
        self.emailVerified = emailVerified
    }
}
