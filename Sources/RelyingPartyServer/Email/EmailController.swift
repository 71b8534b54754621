import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import MailTransport
import RateLimiting
import Storage

/// The endpoints of the messages a person acts on: verifying a new address (`PATCH /me {"email"}`, its code at
/// `POST /me/email/verify`, its link at `/email/verify`) and recovery by email (`POST /auth/recovery/email`, its link
/// at `/auth/recovery/email`). A link opened by a GET only shows a page whose form POSTs: mail scanners (Outlook's
/// Safe Links) fetch every link, and only the POST spends the token.
struct EmailController: Sendable {
    let time: any TimeSource
    let sessions: SessionService
    let accounts: SignedInAccounts
    let service: AccountService
    let limits: RequestLimits
    /// `recovery.sessionLifetimeSeconds`: how long a recovery session lives.
    let sessionLifetime: TimeInterval
    /// Where the recovery page sends the person once a passkey is added: the first origin's `/`.
    let signInURL: String

    struct AddressRequest: Decodable {
        let email: String
    }

    struct CodeRequest: Decodable {
        let code: String
    }

    struct TokenRequest: Decodable {
        let token: String
    }

    /// The pending address and when its link and code expire.
    struct PendingAnswer: Encodable {
        let pendingEmail: String
        let expiresAt: Date
    }

    /// An address passkeyd can send to (plain ASCII `local@domain`, no CR, LF or other control character), or
    /// `400 invalid_request` naming `email`.
    static func address(_ text: String) throws(ServerError) -> String {
        guard text.utf8.count <= UserRecord.maximumEmailBytes, let parsed = try? MailAddress(text) else {
            throw ServerError(.invalidRequest, member: "email")
        }
        return parsed.address
    }

    /// `PATCH /me` `{"email"}`: records the address as pending and sends *verify your address* to it (202); the
    /// account's address changes only once verified. Limited per account and per recipient.
    func updateMe(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        let address = try Self.address(try JSONBody.decode(AddressRequest.self, from: request).email)
        if user.emailVerified, user.email?.lowercased() == address.lowercased() { return JSONBody.ok(["user": UserJSON(user)]) }
        try limits.take(.mail, key: "account:" + Base64URL.encode(user.id))
        try limits.take(.mail, key: "to:" + address.lowercased())
        guard let expiresAt = try service.requestAddressVerification(userID: user.id, address: address) else { throw ServerError(.notSignedIn) }
        return JSONBody.ok(PendingAnswer(pendingEmail: address, expiresAt: expiresAt), status: 202)
    }

    /// `POST /me/email/verify` `{"code"}`: the 6-digit code of the pending verification; the account with its verified
    /// address.
    func verifyCode(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        let code = try JSONBody.decode(CodeRequest.self, from: request).code.filter { !$0.isWhitespace }
        guard code.utf8.count <= 16 else { throw ServerError(.emailVerificationInvalid) }
        return JSONBody.ok(["user": UserJSON(try service.verifyAddress(code: code, userID: user.id))])
    }

    /// `GET /email/verify?token=`: a page whose button POSTs the token; nothing is spent.
    func verifyLinkPage(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        EmailPages.confirmation(
            title: "Verify your email address",
            text: "Confirm that this address is yours.",
            button: "Verify my address",
            action: "/email/verify",
            token: request.queryValue("token") ?? ""
        )
    }

    /// `POST /email/verify` (a form or JSON `{"token"}`): spends the link; a page, or JSON to a JSON request.
    func verifyLink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let isForm = Self.isForm(request)
        do throws(ServerError) {
            let (token, _) = try Self.token(of: request)
            let user = try service.verifyAddress(linkToken: token)
            return isForm
                ? EmailPages.done(title: "Your address is verified", text: "You can close this page.") : JSONBody.ok(["user": UserJSON(user)])
        } catch {
            if isForm { return EmailPages.failure(error) }
            throw error
        }
    }

    /// `POST /auth/recovery/email` `{"email"}`: 202 with the same body whatever the address (no enumeration); a
    /// single-use link, valid `email.recoveryLinkLifetimeSeconds`, goes to each account whose VERIFIED address it is. Limited per client
    /// address (the route's), per recipient and per account.
    func requestRecovery(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let address = try Self.address(try JSONBody.decode(AddressRequest.self, from: request).email)
        try limits.take(.mailSender, key: "ip:" + limits.clientAddress(request))
        try limits.take(.mail, key: "to:" + address.lowercased())
        _ = try service.requestRecoveryLinks(to: address) { userID in
            // An account over its limit gets nothing more, and the answer stays the same.
            (try? limits.take(.mail, key: "account:" + Base64URL.encode(userID))) != nil
        }
        return JSONBody.ok(["accepted": true], status: 202)
    }

    /// `GET /auth/recovery/email?token=`: a page whose button POSTs the token, adds a passkey with the restricted
    /// session and sends the person to sign in with it (`EmailPages.recovery`); nothing is spent.
    func recoveryLinkPage(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        EmailPages.recovery(signInURL: signInURL)
    }

    /// `GET /auth/recovery/email/page.js`: the recovery page's script.
    func recoveryPageScript(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        EmailPages.script()
    }

    /// `POST /auth/recovery/email/session` (JSON `{"token"}` or the page's form): spends the link and starts the
    /// restricted session of a recovery code (it may only register a passkey, read `/me` and sign out), for
    /// `recovery.sessionLifetimeSeconds`, as a bearer token: the answer of `POST /auth/recovery`.
    func openRecoverySession(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (token, _) = try Self.token(of: request)
        let expiresAt = time.now.addingTimeInterval(sessionLifetime)
        let recovered = try service.recover(linkToken: token) { userID in
            var prepared = sessions.prepare(for: userID, method: .recoveryCode, userVerified: false, request: request)
            prepared.record.expiresAt = expiresAt
            return SessionService.Issued(token: prepared.issued.token, expiresAt: expiresAt, session: prepared.record)
        }
        guard let recovered else { throw ServerError(.recoveryLinkInvalid) }
        var answer = SignedInResponse(user: recovered.user, issued: recovered.issued)
        answer.restricted = true
        return JSONBody.ok(answer)
    }

    /// The token of a form (`token=`) or of a JSON body, and whether it came as a form; a token longer than any
    /// passkeyd makes is refused.
    static func token(of request: HTTPRequest) throws(ServerError) -> (String, Bool) {
        let isForm = Self.isForm(request)
        let token = isForm ? FormFields(body: request.body)["token"] ?? "" : try JSONBody.decode(TokenRequest.self, from: request).token
        guard !token.isEmpty, token.utf8.count <= 128 else { throw ServerError(.invalidRequest, member: "token") }
        return (token, isForm)
    }

    /// Whether the body is a form (`application/x-www-form-urlencoded`): a link page's POST.
    static func isForm(_ request: HTTPRequest) -> Bool {
        request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            == "application/x-www-form-urlencoded"
    }
}
