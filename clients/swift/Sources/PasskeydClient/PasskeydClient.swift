import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// passkeyd's API for an app: passkey registration and sign-in (with `PlatformRegistrationRequest` /
/// `PlatformAssertionRequest` in between), passkey management, Sign in with Apple, merging accounts and web view
/// hand-off. Sign-in answers store their session in `tokenStore`, and every call sends it as a bearer; an expired
/// session is dropped before a call, and one the server refuses (`not_signed_in`) is dropped after it, so an app never
/// sends a dead session twice. Every failure is a `PasskeydError`.
public final class PasskeydClient: Sendable {
    /// Which account survives a merge.
    public enum MergeSide: String, Sendable, Codable {
        case current, other
    }

    public let baseURL: URL
    public let tokenStore: any TokenStore
    private let session: URLSession
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - baseURL: passkeyd's origin, e.g. `https://example.com` (an `https` URL in production).
    ///   - tokenStore: where the session is kept (the Keychain in an app).
    ///   - session: the URLSession to send with (its delegate decides about certificates); by default an ephemeral one
    ///     without cookies (`cookielessSession()`). Give yours one without cookie storage too.
    ///   - now: the clock, for the session's expiry.
    public init(
        baseURL: URL,
        tokenStore: any TokenStore = InMemoryTokenStore(),
        session: URLSession = PasskeydClient.cookielessSession(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.baseURL = baseURL
        self.tokenStore = tokenStore
        self.session = session
        self.now = now
    }

    /// Whether a session that has not expired is stored.
    public var isSignedIn: Bool {
        (try? currentSession()) != nil
    }

    /// An ephemeral session that neither stores nor sends cookies: the bearer is the app's session, and passkeyd's
    /// cookie (for web pages) must never ride along (a stale one is `401 not_signed_in`; a live one would make writes
    /// cookie-authenticated, which need an `Origin`).
    public static func cookielessSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    // MARK: Passkeys

    /// `POST /webauthn/registration/options`: a new account (`username`) or, signed in, a passkey for this account
    /// (no username). Pass the answer to `PlatformRegistrationRequest`. `automaticUpgrade` asks for the options of an
    /// automatic passkey upgrade (`"mediation": "conditional"`, for a conditional registration request), which passkeyd
    /// gives only to a password sign-in of the last minutes (`passkey_upgrade_not_allowed` otherwise).
    public func registrationOptions(
        username: String? = nil,
        displayName: String? = nil,
        automaticUpgrade: Bool = false
    ) async throws(PasskeydError) -> CreationOptions {
        struct Body: Encodable {
            let username: String?
            let displayName: String?
            let mediation: String?
        }
        let body = Body(username: username, displayName: displayName, mediation: automaticUpgrade ? "conditional" : nil)
        return try await send("POST", "/webauthn/registration/options", body)
    }

    /// `POST /webauthn/registration/verify` with what the authenticator made; stores the new session.
    public func register(_ registration: PlatformRegistration) async throws(PasskeydError) -> SignInResult {
        try await verifyRegistration(try registration.response())
    }

    /// `POST /webauthn/registration/verify` with a `RegistrationResponseJSON` made elsewhere.
    public func verifyRegistration(_ response: RegistrationResponse) async throws(PasskeydError) -> SignInResult {
        try keep(try await send("POST", "/webauthn/registration/verify", response))
    }

    /// `POST /webauthn/authentication/options`: without a username, for any passkey of the RP ID (discoverable).
    public func authenticationOptions(username: String? = nil) async throws(PasskeydError) -> RequestOptions {
        struct Body: Encodable { let username: String? }
        return try await send("POST", "/webauthn/authentication/options", Body(username: username))
    }

    /// `POST /webauthn/authentication/verify` with what the authenticator made; stores the new session.
    public func signIn(_ assertion: PlatformAssertion) async throws(PasskeydError) -> SignInResult {
        try await verifyAuthentication(try assertion.response())
    }

    /// `POST /webauthn/authentication/verify` with an `AuthenticationResponseJSON` made elsewhere.
    public func verifyAuthentication(_ response: AuthenticationResponse) async throws(PasskeydError) -> SignInResult {
        try keep(try await send("POST", "/webauthn/authentication/verify", response))
    }

    // MARK: Passwords (a bridge to passkeys)

    /// `POST /auth/password` with a password imported from the app's old system; stores the session. Then offer a
    /// passkey: `upgradeToPasskey(anchor:)` (no prompt) or `registerPasskey(anchor:)`. `password_invalid` for any wrong
    /// name or password. Under `passwords.session: "upgradeOnly"` the session is restricted (`restricted`): it may
    /// only add a passkey, read the account and sign out.
    public func signInWithPassword(username: String, password: String) async throws(PasskeydError) -> SignInResult {
        struct Body: Encodable {
            let username: String
            let password: String
        }
        return try keep(try await send("POST", "/auth/password", Body(username: username, password: password)))
    }

    /// `POST /auth/password` by email: it signs in only when exactly one account has that email.
    public func signInWithPassword(email: String, password: String) async throws(PasskeydError) -> SignInResult {
        struct Body: Encodable {
            let email: String
            let password: String
        }
        return try keep(try await send("POST", "/auth/password", Body(email: email, password: password)))
    }

    // MARK: The account

    /// `GET /me`.
    public func account() async throws(PasskeydError) -> Account {
        try await send("GET", "/me", Empty?.none)
    }

    /// `GET /me/passkeys`.
    public func passkeys() async throws(PasskeydError) -> [Passkey] {
        try await send("GET", "/me/passkeys", Empty?.none)
    }

    /// `PATCH /me/passkeys/{id}`.
    public func renamePasskey(id: String, to name: String) async throws(PasskeydError) {
        struct Body: Encodable { let name: String }
        let _: Ignored = try await send("PATCH", "/me/passkeys/" + Self.segment(id), Body(name: name))
    }

    /// `DELETE /me/passkeys/{id}`; `last_credential` for the only way to sign in.
    public func deletePasskey(id: String) async throws(PasskeydError) {
        let _: Ignored = try await send("DELETE", "/me/passkeys/" + Self.segment(id), Empty?.none)
    }

    /// `POST /logout`. The stored session is dropped whatever the server answers.
    public func signOut() async throws(PasskeydError) {
        defer { try? tokenStore.save(nil) }
        let _: Ignored = try await send("POST", "/logout", Empty())
    }

    /// `DELETE /me`: the account and everything of it. The stored session is dropped.
    public func deleteAccount() async throws(PasskeydError) {
        let _: Ignored = try await send("DELETE", "/me", Empty?.none)
        try? tokenStore.save(nil)
    }

    // MARK: Sessions and recovery

    /// `POST /session/token`: a fresh access token for the app's own API, for the stored session; `not_signed_in` once
    /// that session is gone (signed out, deleted, merged away, revoked).
    public func accessToken() async throws(PasskeydError) -> AccessToken {
        try await send("POST", "/session/token", Empty?.none)
    }

    /// `GET /me/sessions`: the account's live sessions (`current` marks this one).
    public func sessions() async throws(PasskeydError) -> [Session] {
        struct Answer: Decodable { let sessions: [Session] }
        let answer: Answer = try await send("GET", "/me/sessions", Empty?.none)
        return answer.sessions
    }

    /// `DELETE /me/sessions/{id}`: ends another session of the account (`session_not_found` for any other ID).
    public func revokeSession(id: String) async throws(PasskeydError) {
        let _: Ignored = try await send("DELETE", "/me/sessions/" + Self.segment(id), Empty?.none)
    }

    /// `POST /me/sessions/revoke-others`: ends every other session; how many ended.
    public func revokeOtherSessions() async throws(PasskeydError) -> Int {
        struct Answer: Decodable { let revoked: Int }
        let answer: Answer = try await send("POST", "/me/sessions/revoke-others", Empty?.none)
        return answer.revoked
    }

    /// `POST /me/recovery-codes`: ten new single-use codes, shown once (the earlier ones stop working).
    public func createRecoveryCodes() async throws(PasskeydError) -> [String] {
        struct Answer: Decodable { let codes: [String] }
        let answer: Answer = try await send("POST", "/me/recovery-codes", Empty?.none)
        return answer.codes
    }

    /// `POST /auth/recovery`: a restricted session (`restricted: true`, stored) that may only register a passkey,
    /// read the account and sign out: register one next (`registrationOptions()` without a username).
    public func signInWithRecoveryCode(username: String, code: String) async throws(PasskeydError) -> SignInResult {
        struct Body: Encodable {
            let username: String
            let code: String
        }
        return try keep(try await send("POST", "/auth/recovery", Body(username: username, code: code)))
    }

    // MARK: Sign in with Apple

    /// `POST /auth/apple/nonce`: give `hashed` to Apple, then the nonce to `AppleSignInExchange`.
    public func appleNonce() async throws(PasskeydError) -> AppleSignInNonce {
        try await send("POST", "/auth/apple/nonce", Empty())
    }

    /// `POST /auth/apple`: signs in (or up); signed in, links the Apple ID to this account (`apple_identity_taken`
    /// with a `mergeToken` when it is another account's). Stores the new session.
    public func signInWithApple(_ exchange: AppleSignInExchange) async throws(PasskeydError) -> SignInResult {
        try keep(try await send("POST", "/auth/apple", exchange))
    }

    /// `DELETE /me/apple/{appleUserID}`.
    public func unlinkApple(appleUserID: String) async throws(PasskeydError) {
        let _: Ignored = try await send("DELETE", "/me/apple/" + Self.segment(appleUserID), Empty?.none)
    }

    // MARK: One account per person

    /// `POST /me/merge`. Without `keep` the answer is `merge_conflict` with both accounts and a fresh `mergeToken`;
    /// with it, the survivor (and a new session, stored, when the survivor is the other account).
    public func merge(_ proof: MergeProof, keep side: MergeSide? = nil) async throws(PasskeydError) -> SignInResult {
        struct Body: Encodable {
            let proof: MergeProof
            let keep: MergeSide?
        }
        return try keep(try await send("POST", "/me/merge", Body(proof: proof, keep: side)))
    }

    /// `POST /me/link-suggestion/decline`.
    public func declineLinkSuggestion() async throws(PasskeydError) {
        let _: Ignored = try await send("POST", "/me/link-suggestion/decline", Empty())
    }

    /// `POST /session/handoff`: a link that signs a web view in to this account, without the bearer in a URL.
    public func sessionHandoff() async throws(PasskeydError) -> SessionHandoff {
        try await send("POST", "/session/handoff", Empty())
    }

    // MARK: Sending

    private struct Empty: Codable {}

    /// An answer whose body does not matter (`{"deleted": true}`).
    private struct Ignored: Decodable {}

    /// The stored session, dropped when it has expired.
    private func currentSession() throws(PasskeydError) -> StoredSession? {
        let stored: StoredSession?
        do { stored = try tokenStore.load() } catch {
            throw PasskeydError(.tokenStore, message: "the token store could not be read: \(error)")
        }
        guard let stored else { return nil }
        guard stored.expiresAt > now() else {
            try? tokenStore.save(nil)
            return nil
        }
        return stored
    }

    /// Stores the session a sign-in answer started.
    private func keep(_ result: SignInResult) throws(PasskeydError) -> SignInResult {
        guard let token = result.token, let expiresAt = result.expiresAt else { return result }
        do { try tokenStore.save(StoredSession(token: token, expiresAt: expiresAt)) } catch {
            throw PasskeydError(.tokenStore, message: "the token store could not be written: \(error)")
        }
        return result
    }

    private static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? text
    }

    private func send<Body: Encodable, Answer: Decodable>(_ method: String, _ path: String, _ body: Body?) async throws(PasskeydError) -> Answer {
        guard let url = URL(string: path, relativeTo: baseURL) else {
            throw PasskeydError(.invalidOptions, message: "\(path) is not a path under \(baseURL)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // The bearer is the session: passkeyd's cookie (set for web pages) is neither stored nor sent, so a stale
        // cookie in the shared cookie storage can never sign the app out or into another account.
        request.httpShouldHandleCookies = false
        if let token = try currentSession()?.token {
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            do { request.httpBody = try JSONEncoder.passkeyd.encode(body) } catch {
                throw PasskeydError(.invalidOptions, message: "the request body could not be encoded: \(error)")
            }
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw PasskeydError(.network, message: "\(method) \(path): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw PasskeydError(.invalidResponse, message: "\(method) \(path): not an HTTP answer")
        }
        guard (200..<300).contains(http.statusCode) else {
            let error = PasskeydError.answer(status: http.statusCode, body: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After"))
            if error.code == .notSignedIn { try? tokenStore.save(nil) }
            throw error
        }
        do { return try JSONDecoder.passkeyd.decode(Answer.self, from: data) } catch {
            throw PasskeydError(
                .invalidResponse,
                message: "\(method) \(path): the answer is not the expected JSON: \(error)",
                status: http.statusCode
            )
        }
    }
}
