import Foundation
import Storage

/// Who the OpenID provider's tokens of one grant speak for, and for which client: what both the access token and the
/// ID token are minted from.
struct OpenIDGrantSubject: Sendable {
    let user: UserRecord
    let grant: OAuthGrantRecord
    /// The ID token's `nonce`: the authorization request's, on the code exchange only (OpenID Connect Core §3.1.3.6).
    var nonce: String?

    var scopes: Set<Substring> { Set(grant.scope.split(separator: " ")) }
}
