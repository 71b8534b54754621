import CryptoCore
import Foundation
import Storage

/// A session as `GET /me/sessions` and the admin API show it: its public ID, never its token.
public struct SessionJSON: Encodable, Equatable, Sendable {
    /// The base64url public session ID (`DELETE /me/sessions/{id}`, a JWT's `sid`).
    public let id: String
    public let method: String
    /// The passkey that signed it in (`method` `passkey`).
    public let credentialId: String?
    /// The Apple `sub` that signed it in (`method` `apple`).
    public let appleUserId: String?
    public let createdAt: Date
    /// Absent until a request carries the session (recorded every few minutes).
    public let lastUsedAt: Date?
    public let expiresAt: Date
    /// The `User-Agent` of the sign-in, cut to 256 bytes.
    public let userAgent: String?
    /// Whether it is the session of the request (`GET /me/sessions` only).
    public let current: Bool?

    init(_ session: SessionRecord, current: Bool?) {
        id = Base64URL.encode(session.id)
        method = session.method.rawValue
        credentialId = session.credentialID.map(Base64URL.encode)
        appleUserId = session.appleSubject
        createdAt = session.createdAt
        lastUsedAt = session.lastUsedAt
        expiresAt = session.expiresAt
        userAgent = session.userAgent
        self.current = current
    }
}
