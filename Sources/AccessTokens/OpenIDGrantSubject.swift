import Foundation
import Storage

/// Who the OpenID provider's tokens of one grant speak for, and for which client: what both the access token and the
/// ID token are minted from.
public struct OpenIDGrantSubject: Sendable {
    public let user: UserRecord
    public let grant: OAuthGrantRecord
    /// The ID token's `nonce`: the authorization request's, on the code exchange only (OpenID Connect Core §3.1.3.6).
    public var nonce: String?

    public var scopes: Set<Substring> { Set(grant.scope.split(separator: " ")) }

    public init(user: UserRecord, grant: OAuthGrantRecord, nonce: String? = nil) {
        self.user = user
        self.grant = grant
        self.nonce = nonce
    }
}
