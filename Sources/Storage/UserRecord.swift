import Foundation

/// A registered account.
public struct UserRecord: Sendable, Equatable {
    /// The 32-byte WebAuthn user handle; the primary key.
    public var id: [UInt8]
    /// The username; unique across all users.
    public var name: String
    /// The name shown to the user by authenticators.
    public var displayName: String
    /// When the account was created.
    public var createdAt: Date

    /// Creates a user record from its fields.
    public init(id: [UInt8], name: String, displayName: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.createdAt = createdAt
    }
}
