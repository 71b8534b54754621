import CryptoCore
import Foundation
import HTTPServer
import Observability
import Storage

extension RelyingPartyServer {
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

        init(user: UserRecord, issued: SessionService.Issued?) {
            self.user = UserJSON(user)
            token = issued?.token
            expiresAt = issued?.expiresAt
        }

        func write(to object: inout JSONObjectWriter) {
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
            object.add("user") { user.write(to: &$0) }
            if let verified { object.add("verified", verified) }
        }
    }

    /// The answer of a sign-in: the body with an access token for the session (`issued`'s, or `continuing` when none
    /// was started), and the session cookie when a session was started (stored already).
    func signedIn(
        _ answer: SignedInResponse,
        user: UserRecord,
        issued: SessionService.Issued?,
        continuing current: SessionRecord? = nil
    ) throws(ServerError) -> HTTPResponse {
        var answer = answer
        if let session = issued?.session ?? current {
            let accessToken = try mintAccessToken(user: user, session: session)
            (answer.accessToken, answer.accessTokenExpiresAt) = (accessToken.token, accessToken.expiresAt)
        }
        var response = JSONBody.ok(answer)
        if let issued { response.headers.add("Set-Cookie", sessions.cookie(for: issued)) }
        return response
    }

    /// The passkey ceremonies' answer.
    func signedIn(user: UserRecord, credentialID: [UInt8], issued: SessionService.Issued) throws(ServerError) -> HTTPResponse {
        var answer = SignedInResponse(user: user, issued: issued)
        answer.verified = true
        answer.credentialId = Base64URL.encode(credentialID)
        return try signedIn(answer, user: user, issued: issued)
    }

    /// The signed-in user of a request the route table resolved, or `401 not_signed_in` (`SignedInAccounts.user`).
    func signedInUser(
        _ request: HTTPRequest,
        _ context: RouteContext,
        writing: Bool
    ) throws(ServerError) -> (
        user: UserRecord, signedIn: SessionService.SignedIn
    ) {
        try accounts.user(request, context, writing: writing)
    }
}
