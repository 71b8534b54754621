import CryptoCore
import Foundation
import HTTPEdge
import JSON
import Observability
import Storage

/// Every sign-in answer (registration and authentication verify, `POST /auth/apple`, `POST /me/merge`): the user,
/// the new session's token when one was started, and what the endpoint adds. Absent members are left out.
struct SignedInResponse: DirectJSONBody {
    /// The passkey ceremonies' `true`.
    var verified: Bool?
    /// The passkey that signed in (passkey ceremonies).
    var credentialId: String?
    var user: UserJSON
    /// The new session's bearer token and expiry; absent when no session was started (a merge into the signed-in
    /// account).
    var token: String?
    var expiresAt: Date?
    /// An access token (a JWT for the app's own API) for the new session, or for the signed-in one when none was
    /// started, and when it expires.
    var accessToken: String?
    var accessTokenExpiresAt: Date?
    /// `POST /auth/apple`: whether this sign-in created the account, and the Apple `sub`.
    var isNewAccount: Bool?
    var appleUserID: String?
    /// `POST /auth/apple`: `"matching_email"` when another account holds the same verified email.
    var linkSuggestion: String?
    /// `POST /me/merge`: the user handle of the account that went away.
    var previousUserId: String?
    /// `POST /auth/recovery`: the session may only register a passkey, read `/me` and sign out.
    var restricted: Bool?
    /// Registration: the passkey was made by an automatic upgrade (a conditional registration after a password sign-in).
    var upgrade: Bool?

    init(user: UserRecord, issued: SessionService.Issued?) {
        self.user = UserJSON(user)
        token = issued?.token
        expiresAt = issued?.expiresAt
    }

    package func write(to object: inout JSONObjectWriter) {
        if let accessToken { object.add("accessToken", accessToken) }
        if let accessTokenExpiresAt { object.add("accessTokenExpiresAt", RFC3339Timestamp.seconds(accessTokenExpiresAt)) }
        if let appleUserID { object.add("appleUserID", appleUserID) }
        if let credentialId { object.add("credentialId", credentialId) }
        if let expiresAt { object.add("expiresAt", RFC3339Timestamp.seconds(expiresAt)) }
        if let isNewAccount { object.add("isNewAccount", isNewAccount) }
        if let linkSuggestion { object.add("linkSuggestion", linkSuggestion) }
        if let previousUserId { object.add("previousUserId", previousUserId) }
        if let restricted { object.add("restricted", restricted) }
        if let token { object.add("token", token) }
        if let upgrade { object.add("upgrade", upgrade) }
        object.add("user") { user.write(to: &$0) }
        if let verified { object.add("verified", verified) }
    }
}
