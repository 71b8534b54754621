import Foundation

/// A pending ceremony challenge, valid once until it expires.
public struct ChallengeRecord: Sendable, Equatable {
    /// The 32 random challenge bytes; the primary key.
    public var challenge: [UInt8]
    /// The ceremony the challenge was issued for.
    public var ceremony: CeremonyKind
    /// The user the challenge was issued for; nil for discoverable-credential flows.
    /// When set, deleting that user deletes the challenge.
    public var userID: [UInt8]?
    /// The requested user verification: "required", "preferred" or "discouraged".
    public var userVerification: String
    /// Opaque JSON the server stores with the challenge, such as the pending username.
    public var context: [UInt8]
    /// The instant from which the challenge is no longer valid.
    public var expiresAt: Date

    /// Creates a challenge record from its fields.
    public init(
        challenge: [UInt8],
        ceremony: CeremonyKind,
        userID: [UInt8]?,
        userVerification: String,
        context: [UInt8],
        expiresAt: Date
    ) {
        self.challenge = challenge
        self.ceremony = ceremony
        self.userID = userID
        self.userVerification = userVerification
        self.context = context
        self.expiresAt = expiresAt
    }
}
