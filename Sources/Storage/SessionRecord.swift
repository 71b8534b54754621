import Foundation

/// A signed-in session.
public struct SessionRecord: Sendable, Equatable {
    /// The length of `id` in bytes.
    public static let idLength = 16
    /// The most bytes of `userAgent` a store accepts (`boundedUserAgent` cuts a header to it).
    public static let maximumUserAgentBytes = 256

    /// The SHA-256 of the opaque session token; the primary key. The token itself is never stored.
    public var tokenHash: [UInt8]
    /// The public identifier of the session: 16 random bytes, not derived from the token, unique across all sessions.
    /// Safe to show and to name in URLs and tokens (a JWT's `sid`, `DELETE /me/sessions/{id}`); it signs nobody in.
    public var id: [UInt8]
    /// The user the session belongs to.
    public var userID: [UInt8]
    /// How the session was signed in.
    public var method: SessionMethod
    /// The passkey that signed the session in, when `method` is `.passkey`; nil otherwise.
    public var credentialID: [UInt8]?
    /// The Apple identity (`sub`) that signed the session in, when `method` is `.apple`; nil otherwise.
    public var appleSubject: String?
    /// The identity at an OpenID provider that signed the session in (its `iss` and `sub`), when `method` is
    /// `.identityProvider`; nil otherwise. Both or neither, bounded as `FederatedIdentityRecord`'s.
    public var federatedIssuer: String?
    public var federatedSubject: String?
    /// The session that made the hand-off link this session was started from (`POST /session/handoff`); nil for any
    /// other session. A session ends with its parent: every deletion deletes the sessions handed off from it.
    public var parentID: [UInt8]?
    /// Whether the sign-in verified the user (the authenticator's UV flag); false when unknown (Sign in with Apple).
    public var userVerified: Bool
    /// When the session was created.
    public var createdAt: Date
    /// When the user last proved who they are for this session (OpenID's `auth_time`); `createdAt` for a new sign-in.
    public var authenticatedAt: Date
    /// The instant from which the session is no longer valid.
    public var expiresAt: Date
    /// The request's `User-Agent` when the session was created, at most `maximumUserAgentBytes` bytes; nil without one.
    public var userAgent: String?
    /// When a request last carried the session (updated at most every few minutes); nil until then.
    public var lastUsedAt: Date?

    /// Creates a session record from its fields; `authenticatedAt` defaults to `createdAt`.
    public init(
        tokenHash: [UInt8],
        id: [UInt8],
        userID: [UInt8],
        method: SessionMethod,
        credentialID: [UInt8]? = nil,
        appleSubject: String? = nil,
        federatedIssuer: String? = nil,
        federatedSubject: String? = nil,
        parentID: [UInt8]? = nil,
        userVerified: Bool,
        createdAt: Date,
        authenticatedAt: Date? = nil,
        expiresAt: Date,
        userAgent: String? = nil,
        lastUsedAt: Date? = nil
    ) {
        self.tokenHash = tokenHash
        self.id = id
        self.userID = userID
        self.method = method
        self.credentialID = credentialID
        self.appleSubject = appleSubject
        self.federatedIssuer = federatedIssuer
        self.federatedSubject = federatedSubject
        self.parentID = parentID
        self.userVerified = userVerified
        self.createdAt = createdAt
        self.authenticatedAt = authenticatedAt ?? createdAt
        self.expiresAt = expiresAt
        self.userAgent = userAgent
        self.lastUsedAt = lastUsedAt
    }

    /// The order of the contract's session lists: by `createdAt`, then by `id` (lexicographic bytes).
    public static func precedes(_ left: SessionRecord, _ right: SessionRecord) -> Bool {
        if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
        return left.id.lexicographicallyPrecedes(right.id)
    }

    /// `header` cut to at most `maximumUserAgentBytes` bytes of UTF-8 on a character boundary; nil when empty or absent.
    public static func boundedUserAgent(_ header: String?) -> String? {
        guard let header, !header.isEmpty else { return nil }
        var bounded = Substring(header)
        while bounded.utf8.count > maximumUserAgentBytes {
            bounded = bounded.dropLast()
        }
        return bounded.isEmpty ? nil : String(bounded)
    }

    /// Refuses a record no store keeps: an `id` or `parentID` that is not 16 bytes, a user agent over the bound, a
    /// federated identity with one half or past its bounds. For drivers to check before they write.
    public func validate() throws(StorageError) {
        guard id.count == Self.idLength, parentID.map({ $0.count == Self.idLength && $0 != id }) ?? true else {
            throw StorageError(.invalidRecord, "a session ID and its parent's must be \(Self.idLength) bytes")
        }
        switch (federatedIssuer, federatedSubject) {
        case (nil, nil): break
        case (let issuer?, let subject?)
        where !issuer.isEmpty && issuer.utf8.count <= FederatedIdentityRecord.maximumIssuerBytes && !subject.isEmpty
            && subject.utf8.count <= FederatedIdentityRecord.maximumSubjectBytes:
            break
        default: throw StorageError(.invalidRecord, "a session's federated identity must have an issuer and a subject within their bounds")
        }
        if let userAgent, userAgent.utf8.count > Self.maximumUserAgentBytes {
            throw StorageError(.invalidRecord, "a session's user agent must be at most \(Self.maximumUserAgentBytes) bytes")
        }
    }
}
