import Foundation
import JSON

/// `GET /admin/users/{id}`: the account with everything it holds but secrets (no token, key or code hash).
public struct AdminUserDetail: Encodable, Sendable {
    public let user: UserJSON
    public let createdAt: Date
    public let passkeys: [PasskeyJSON]
    public let appleIdentities: [AccountJSON.AppleIdentityJSON]
    /// Identities at OpenID providers.
    public let identities: [FederatedIdentityJSON]
    /// The live sessions, oldest first.
    public let sessions: [SessionJSON]
    /// How many unused recovery codes the account has.
    public let recoveryCodesLeft: Int
    /// The app's metadata on the account (`UserMetadata`), when it set some.
    public let metadata: JSONValue?
    /// The new address waiting for its link or code (`PATCH /me {"email"}`, `PATCH /admin/users/{id}`), while valid:
    /// never the link's token or the code.
    public let pendingEmail: String?
}
