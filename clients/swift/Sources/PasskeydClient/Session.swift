import Foundation

/// A live session of the account (`GET /me/sessions`).
public struct Session: Codable, Sendable, Equatable, Identifiable {
    /// The base64url session ID: what `revokeSession` takes (never the token).
    public let id: String
    /// How it signed in (`passkey`, `apple`, `recoveryCode` …).
    public let method: String
    public let credentialId: String?
    public let appleUserId: String?
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let expiresAt: Date
    public let userAgent: String?
    /// True for the session that asked.
    public let current: Bool?
}
