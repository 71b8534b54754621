import Foundation

/// A single-use enrollment link (`POST /admin/users/{id}/enrollment-links`): what lets a person who lost every passkey
/// register a new one on their account. Only the SHA-256 of the link's token is stored.
public struct EnrollmentTokenRecord: Sendable, Equatable {
    /// The SHA-256 of the token; the primary key.
    public var tokenHash: [UInt8]
    /// The account the link enrolls a passkey on; deleting it deletes the link.
    public var userID: [UInt8]
    /// When the link was made.
    public var createdAt: Date
    /// The instant from which the link is no longer valid.
    public var expiresAt: Date

    /// Creates an enrollment token record from its fields.
    public init(tokenHash: [UInt8], userID: [UInt8], createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
