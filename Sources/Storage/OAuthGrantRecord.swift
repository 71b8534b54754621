import Foundation

/// What a client of the OpenID provider was given by one authorization code: a family of refresh tokens, each
/// replacing the last (rotation). Deleting the grant revokes the family: its refresh tokens, and the access tokens
/// that name it (`sid`), which `GET /oauth/userinfo` then refuses. Deleted with its account.
public struct OAuthGrantRecord: Sendable, Equatable {
    /// The length of `id` in bytes.
    public static let idLength = 16

    /// 16 random bytes.
    public var id: [UInt8]
    public var clientID: String
    public var userID: [UInt8]
    /// The passkeyd session that signed the person in when the grant was made (its public ID).
    public var sessionID: [UInt8]
    /// The granted scopes, space-separated.
    public var scope: String
    /// `auth_time` and `amr` (space-separated) of the sign-in, for the ID tokens of refreshes.
    public var authenticatedAt: Date
    public var authenticationMethods: String
    public var createdAt: Date
    /// The instant from which no refresh token of the family is accepted (the family's absolute lifetime).
    public var expiresAt: Date

    public init(
        id: [UInt8],
        clientID: String,
        userID: [UInt8],
        sessionID: [UInt8],
        scope: String,
        authenticatedAt: Date,
        authenticationMethods: String,
        createdAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.sessionID = sessionID
        self.scope = scope
        self.authenticatedAt = authenticatedAt
        self.authenticationMethods = authenticationMethods
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Refuses a record no store keeps. For drivers to check before they write.
    public func validate() throws(StorageError) {
        guard !id.isEmpty, id.count <= 64, !clientID.isEmpty, clientID.utf8.count <= AuthorizationCodeRecord.maximumClientIDLength,
            scope.utf8.count <= AuthorizationCodeRecord.maximumScopeLength, authenticationMethods.utf8.count <= 128
        else {
            throw StorageError(.invalidRecord, "a grant's fields are past their bounds")
        }
    }
}
