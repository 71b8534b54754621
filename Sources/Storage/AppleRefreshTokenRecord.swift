/// An Apple refresh token held for an identity and one client ID (bundle ID or Services ID): one per pair, stored
/// encrypted by the server. Deleted with its identity.
public struct AppleRefreshTokenRecord: Sendable, Equatable {
    /// The identity's `sub`.
    public var subject: String
    /// The client ID the token was issued to; needed to revoke it.
    public var clientID: String
    /// The refresh token, encrypted by the server (never stored in the clear).
    public var encryptedToken: [UInt8]

    /// Creates a refresh token record from its fields.
    public init(subject: String, clientID: String, encryptedToken: [UInt8]) {
        self.subject = subject
        self.clientID = clientID
        self.encryptedToken = encryptedToken
    }
}
