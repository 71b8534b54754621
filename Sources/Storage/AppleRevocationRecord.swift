import Foundation

/// A queued request to revoke an Apple refresh token (account deletion, App Store guideline 5.1.1(v)).
public struct AppleRevocationRecord: Sendable, Equatable {
    /// Assigned by the store; increasing in insertion order.
    public var id: Int64
    /// The refresh token, encrypted by the server as it was stored with the identity.
    public var encryptedToken: [UInt8]
    /// The client ID (bundle ID or Services ID) the token was issued to.
    public var clientID: String
    /// The earliest time to try (again).
    public var notBefore: Date
    /// The number of failed attempts so far.
    public var attempts: Int

    /// Creates a revocation record from its fields.
    public init(id: Int64, encryptedToken: [UInt8], clientID: String, notBefore: Date, attempts: Int) {
        self.id = id
        self.encryptedToken = encryptedToken
        self.clientID = clientID
        self.notBefore = notBefore
        self.attempts = attempts
    }
}
