import Foundation

/// One refresh token of a grant (`OAuthGrantRecord`): only its SHA-256 is stored. Exchanging it marks it used and
/// issues the next one of the family; presenting a used one again is reuse, and revokes the whole family.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// The SHA-256 of the token; the primary key.
    public var tokenHash: [UInt8]
    /// The grant (family) it belongs to; deleting the grant deletes it.
    public var grantID: [UInt8]
    public var createdAt: Date
    /// When it was exchanged for the next one; nil while it is the family's current token.
    public var usedAt: Date?

    public init(tokenHash: [UInt8], grantID: [UInt8], createdAt: Date, usedAt: Date? = nil) {
        self.tokenHash = tokenHash
        self.grantID = grantID
        self.createdAt = createdAt
        self.usedAt = usedAt
    }
}
