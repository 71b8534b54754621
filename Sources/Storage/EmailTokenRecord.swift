import Foundation

/// A single-use token sent by email: a pending address verification (`PATCH /me {"email"}`, a link and a 6-digit
/// code) or a recovery link (`POST /auth/recovery/email`). Only hashes are stored: the SHA-256 of the link's token, and
/// for a verification the SHA-256 of the code bound to its account. An account has at most one of each purpose: a new
/// one replaces the old.
public struct EmailTokenRecord: Sendable, Equatable {
    /// What spending the token does.
    public enum Purpose: String, Sendable, CaseIterable {
        /// Makes `address` the account's verified email.
        case verifyAddress
        /// Opens a restricted session that may only add a passkey.
        case recovery
    }

    /// The SHA-256 of the link's token; the primary key.
    public var tokenHash: [UInt8]
    public var purpose: Purpose
    /// The account; deleting it deletes the token.
    public var userID: [UInt8]
    /// The address the message went to (for a verification, the address that becomes the account's).
    public var address: String
    /// A verification's code, hashed (`nil` for a recovery link).
    public var codeHash: [UInt8]?
    /// Codes tried so far, the right one included: counted in the store, so on every node.
    public var attempts: Int
    public var createdAt: Date
    /// The instant from which the token is no longer valid.
    public var expiresAt: Date

    /// Creates an email token record from its fields.
    public init(
        tokenHash: [UInt8],
        purpose: Purpose,
        userID: [UInt8],
        address: String,
        codeHash: [UInt8]?,
        attempts: Int = 0,
        createdAt: Date,
        expiresAt: Date
    ) {
        self.tokenHash = tokenHash
        self.purpose = purpose
        self.userID = userID
        self.address = address
        self.codeHash = codeHash
        self.attempts = attempts
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
