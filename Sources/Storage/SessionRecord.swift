import Foundation

/// A signed-in session.
public struct SessionRecord: Sendable, Equatable {
    /// The SHA-256 of the opaque session token; the token itself is never stored.
    public var tokenHash: [UInt8]
    /// The user the session belongs to.
    public var userID: [UInt8]
    /// When the session was created.
    public var createdAt: Date
    /// The instant from which the session is no longer valid.
    public var expiresAt: Date

    /// Creates a session record from its fields.
    public init(tokenHash: [UInt8], userID: [UInt8], createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
