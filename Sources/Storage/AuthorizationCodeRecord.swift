import Foundation

/// An OAuth authorization code of the OpenID provider (`GET /oauth/authorize`): single use, short-lived, bound to the
/// client, the redirect URI and the PKCE challenge it was issued for. Only its SHA-256 is stored. A used code is kept
/// until it expires, so that a second use is recognised and revokes the grant the first one started (`grantID`).
public struct AuthorizationCodeRecord: Sendable, Equatable {
    /// The longest client ID, redirect URI, scope, nonce or `amr` a store accepts.
    public static let maximumClientIDLength = 128
    public static let maximumRedirectURILength = 2048
    public static let maximumScopeLength = 1024
    public static let maximumNonceLength = 512

    /// The SHA-256 of the code; the primary key.
    public var codeHash: [UInt8]
    public var clientID: String
    /// The redirect URI of the request, exactly; the token request must repeat it.
    public var redirectURI: String
    /// The PKCE `code_challenge` (S256: base64url of the verifier's SHA-256).
    public var codeChallenge: String
    /// The request's `nonce`, for the ID token; nil without one.
    public var nonce: String?
    /// The granted scopes, space-separated.
    public var scope: String
    /// The signed-in account, and the session that signed it in (its public ID: the ID token's `sid`).
    public var userID: [UInt8]
    public var sessionID: [UInt8]
    /// When the person last proved who they are (`auth_time`) and how (`amr`, space-separated).
    public var authenticatedAt: Date
    public var authenticationMethods: String
    /// The ID of the grant (refresh-token family) the exchange starts: chosen when the code is issued, so that a
    /// reused code names what to revoke.
    public var grantID: [UInt8]
    public var createdAt: Date
    /// The instant from which the code is no longer exchanged.
    public var expiresAt: Date
    /// When the code was exchanged; nil while it is unused.
    public var usedAt: Date?

    public init(
        codeHash: [UInt8],
        clientID: String,
        redirectURI: String,
        codeChallenge: String,
        nonce: String?,
        scope: String,
        userID: [UInt8],
        sessionID: [UInt8],
        authenticatedAt: Date,
        authenticationMethods: String,
        grantID: [UInt8],
        createdAt: Date,
        expiresAt: Date,
        usedAt: Date? = nil
    ) {
        self.codeHash = codeHash
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.codeChallenge = codeChallenge
        self.nonce = nonce
        self.scope = scope
        self.userID = userID
        self.sessionID = sessionID
        self.authenticatedAt = authenticatedAt
        self.authenticationMethods = authenticationMethods
        self.grantID = grantID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    /// Refuses a record no store keeps (fields past their bounds). For drivers to check before they write.
    public func validate() throws(StorageError) {
        guard !clientID.isEmpty, clientID.utf8.count <= Self.maximumClientIDLength, !redirectURI.isEmpty,
            redirectURI.utf8.count <= Self.maximumRedirectURILength, codeChallenge.utf8.count <= 128,
            scope.utf8.count <= Self.maximumScopeLength, (nonce?.utf8.count ?? 0) <= Self.maximumNonceLength,
            authenticationMethods.utf8.count <= 128
        else {
            throw StorageError(.invalidRecord, "an authorization code's fields are past their bounds")
        }
    }
}
