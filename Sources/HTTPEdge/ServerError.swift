import HTTPServer
import JSON
import Storage
import WebAuthnCore

/// The one error type of the server edge, and the one place that assigns HTTP statuses: the table below gives every
/// client code its status and its client-safe message; the core → server and storage → server mappings are in
/// `ServerError+Mapping.swift`. A client gets `{"error": code, "message": …}`, plus `step` (the core's code of the failed step) for
/// verification failures and `member` (the request member at fault, never its value) where one is named; `detail`
/// goes to the server log only.
///
/// To add a code: a `Base` case (its wire string), its static member, its table row. The compiler refuses a case
/// without a row; a test refuses a wire string written anywhere else in `Sources/`.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// A client code: the `error` member of every error body; `rawValue` is the API and never changes. One code per
    /// wire string; the two codes with a second status model it as a `Variant`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case invalidJSON = "invalid_json"
            case invalidRequest = "invalid_request"
            case invalidUsername = "invalid_username"
            case usernameMixedScripts = "username_mixed_scripts"
            case unsupportedMediaType = "unsupported_media_type"
            case challengeUnknown = "challenge_unknown"
            case challengeExpired = "challenge_expired"
            case verificationFailed = "verification_failed"
            case userVerificationRequired = "user_verification_required"
            case originMismatch = "origin_mismatch"
            case algorithmNotAllowed = "algorithm_not_allowed"
            case credentialUnknown = "credential_unknown"
            case possibleClone = "possible_clone"
            case passkeyChanged = "passkey_changed"
            case notSignedIn = "not_signed_in"
            case invalidIdentityToken = "invalid_identity_token"
            case notFound = "not_found"
            case notConfigured = "not_configured"
            case passkeyNotFound = "passkey_not_found"
            case methodNotAllowed = "method_not_allowed"
            case usernameTaken = "username_taken"
            case usernameConfusable = "username_confusable"
            case externalIdTaken = "external_id_taken"
            case credentialExists = "credential_exists"
            case lastCredential = "last_credential"
            case passkeyLimitReached = "passkey_limit_reached"
            case appleIdentityTaken = "apple_identity_taken"
            case lastSignInMethod = "last_sign_in_method"
            case mergeConflict = "merge_conflict"
            case mergeSameAccount = "merge_same_account"
            case mergeProofRejected = "merge_proof_rejected"
            case appleIdentityNotFound = "apple_identity_not_found"
            case handoffCodeInvalid = "handoff_code_invalid"
            case rateLimited = "rate_limited"
            case appleNotConfigured = "apple_not_configured"
            case invalidNotification = "invalid_notification"
            case internalError = "internal_error"
            case storageUnavailable = "storage_unavailable"
            case appleUnavailable = "apple_unavailable"
            case notReady = "not_ready"
            case adminUnauthorized = "admin_unauthorized"
            case userNotFound = "user_not_found"
            case invalidCursor = "invalid_cursor"
            case deliveryNotFound = "delivery_not_found"
            case sessionNotFound = "session_not_found"
            case enrollmentLinkInvalid = "enrollment_link_invalid"
            case emailNotConfigured = "email_not_configured"
            case emailNotVerified = "email_not_verified"
            case enrollmentLinkExpired = "enrollment_link_expired"
            case recoveryCodeInvalid = "recovery_code_invalid"
            case passwordInvalid = "password_invalid"
            case passwordVerificationBusy = "password_verification_busy"
            case passkeyUpgradeNotAllowed = "passkey_upgrade_not_allowed"
            case passwordSessionRestricted = "password_session_restricted"
            case recoverySessionRestricted = "recovery_session_restricted"
            case insufficientScope = "insufficient_scope"
            case invalidBackendKey = "invalid_backend_key"
            case importInvalid = "import_invalid"
            case invalidClient = "invalid_client"
            case invalidRedirectURI = "invalid_redirect_uri"
            case invalidGrant = "invalid_grant"
            case unsupportedGrantType = "unsupported_grant_type"
            case unsupportedResponseType = "unsupported_response_type"
            case invalidScope = "invalid_scope"
            case loginRequired = "login_required"
            case accessDenied = "access_denied"
            case consentRequired = "consent_required"
            case appleStateInvalid = "apple_state_invalid"
            case appleSignInCancelled = "apple_sign_in_cancelled"
            case invalidReturnPath = "invalid_return_path"
            case invalidToken = "invalid_token"
            case identityProviderNotFound = "identity_provider_not_found"
            case identityTaken = "identity_taken"
            case identityNotFound = "identity_not_found"
            case identityProviderUnavailable = "identity_provider_unavailable"
            case identityStateInvalid = "identity_state_invalid"
            case identityIssuerMismatch = "identity_issuer_mismatch"
            case identitySignInCancelled = "identity_sign_in_cancelled"
            case unknownMember = "unknown_member"
            case accountDisabled = "account_disabled"
            case emailVerificationInvalid = "email_verification_invalid"
            case emailVerificationExpired = "email_verification_expired"
            case emailVerificationLocked = "email_verification_locked"
            case recoveryLinkInvalid = "recovery_link_invalid"
            case handoffFromHandoff = "handoff_from_handoff"
            case emailEventUnauthenticated = "email_event_unauthenticated"
            case emailEventTooLarge = "email_event_too_large"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The body is not JSON, or not the JSON shape the endpoint takes.
        package static let invalidJSON = Code(.invalidJSON)
        /// A request member is missing, has the wrong type or an invalid value; `member` names it.
        package static let invalidRequest = Code(.invalidRequest)
        /// The username is empty, longer than 64 characters or holds control characters.
        package static let invalidUsername = Code(.invalidUsername)
        /// The username mixes scripts (Unicode TS #39 §5.2, beyond Highly Restrictive: Cyrillic letters among Latin
        /// ones) or numbering systems.
        package static let usernameMixedScripts = Code(.usernameMixedScripts)
        /// The body is not `application/json`.
        package static let unsupportedMediaType = Code(.unsupportedMediaType)
        /// The response answers a challenge this server never issued, already took, or issued for the other ceremony.
        package static let challengeUnknown = Code(.challengeUnknown)
        /// The response answers a challenge that expired.
        package static let challengeExpired = Code(.challengeExpired)
        /// A WebAuthn verification step failed; `step` names it.
        package static let verificationFailed = Code(.verificationFailed)
        /// User verification was required and the authenticator did not verify the user.
        package static let userVerificationRequired = Code(.userVerificationRequired)
        /// The ceremony ran on a page this server does not serve (400), or a cookie write came from another origin (403).
        package static let originMismatch = Code(.originMismatch)
        /// The passkey's algorithm is not one this server accepts.
        package static let algorithmNotAllowed = Code(.algorithmNotAllowed)
        /// No passkey with that ID is registered here.
        package static let credentialUnknown = Code(.credentialUnknown)
        /// The signature counter did not increase: a possibly cloned authenticator; the passkey is flagged.
        package static let possibleClone = Code(.possibleClone)
        /// The passkey's stored record changed while the sign-in was written, twice: after the first change the assertion
        /// was verified again from a fresh read, and the record changed again before that write. The challenge is spent.
        package static let passkeyChanged = Code(.passkeyChanged)
        /// No valid session.
        package static let notSignedIn = Code(.notSignedIn)
        /// An Apple identity token was refused; the rule that failed goes to the log only.
        package static let invalidIdentityToken = Code(.invalidIdentityToken)
        /// No such path, or the record is gone.
        package static let notFound = Code(.notFound)
        /// A well-known file this server's configuration does not publish; `key` names the configuration key to set.
        package static let notConfigured = Code(.notConfigured)
        /// The signed-in account has no passkey with that ID.
        package static let passkeyNotFound = Code(.passkeyNotFound)
        /// A known path asked with a method it does not take; `Allow` lists the ones it does.
        package static let methodNotAllowed = Code(.methodNotAllowed)
        /// Another account has that username.
        package static let usernameTaken = Code(.usernameTaken)
        /// The username can be mistaken for another account's (their Unicode TS #39 confusable skeletons are equal).
        package static let usernameConfusable = Code(.usernameConfusable)
        /// Another account has that `externalId` (the app's own user id).
        package static let externalIdTaken = Code(.externalIdTaken)
        /// That passkey is already registered.
        package static let credentialExists = Code(.credentialExists)
        /// The account's only passkey cannot be deleted.
        package static let lastCredential = Code(.lastCredential)
        /// The account has `limits.maximumPasskeysPerAccount` passkeys: delete one before adding another.
        package static let passkeyLimitReached = Code(.passkeyLimitReached)
        /// The Apple ID is linked to another account; the answer carries a `mergeToken` for `POST /me/merge`.
        package static let appleIdentityTaken = Code(.appleIdentityTaken)
        /// Removing this Apple ID would leave the account without a way to sign in.
        package static let lastSignInMethod = Code(.lastSignInMethod)
        /// A merge without `keep`: the answer carries both accounts' summaries and a `mergeToken` to merge with.
        package static let mergeConflict = Code(.mergeConflict)
        /// The merge proof names the signed-in account itself.
        package static let mergeSameAccount = Code(.mergeSameAccount)
        /// The merge proof names no other account: an unknown Apple ID, or a merge token that is unknown, used, expired
        /// or issued to another session.
        package static let mergeProofRejected = Code(.mergeProofRejected)
        /// The signed-in account has no Apple identity with that `sub`.
        package static let appleIdentityNotFound = Code(.appleIdentityNotFound)
        /// The session hand-off code is unknown, used or expired, or its session ended.
        package static let handoffCodeInvalid = Code(.handoffCodeInvalid)
        /// Too many requests from this address or for this account; `Retry-After` says when to retry.
        package static let rateLimited = Code(.rateLimited)
        /// Sign in with Apple is not configured on this server.
        package static let appleNotConfigured = Code(.appleNotConfigured)
        /// The body is not a signed Apple notification (400), or it does not verify (401).
        package static let invalidNotification = Code(.invalidNotification)
        /// A server fault (a stored value is unreadable); the detail goes to the log.
        /// `/auth/{provider}` names no configured identity provider.
        package static let identityProviderNotFound = Code(.identityProviderNotFound)
        /// The identity at the OpenID provider belongs to another account than the signed-in one; merge with the token.
        package static let identityTaken = Code(.identityTaken)
        /// The signed-in account has no identity with that provider and subject.
        package static let identityNotFound = Code(.identityNotFound)
        /// The provider's discovery document or keys cannot be fetched; nothing is accepted without them; retry.
        package static let identityProviderUnavailable = Code(.identityProviderUnavailable)
        /// The web flow's `state` is missing, unknown, used, expired, another browser's or another provider's.
        package static let identityStateInvalid = Code(.identityStateInvalid)
        /// RFC 9207: the authorization response names another issuer than the provider's (a mix-up).
        package static let identityIssuerMismatch = Code(.identityIssuerMismatch)
        /// The provider ended the web flow with an error (the person cancelled).
        package static let identitySignInCancelled = Code(.identitySignInCancelled)
        /// An admin body has a member the call does not take (a misspelling, a newer version's); `member` names it.
        package static let unknownMember = Code(.unknownMember)
        /// The account is disabled (`PATCH /admin/users/{id} {"disabled": true}`): told only to whoever proved to be the
        /// account (a verified passkey, Apple or provider token, password or recovery code), never to a stranger.
        package static let accountDisabled = Code(.accountDisabled)
        /// An address verification's link or code is unknown, spent, replaced by a newer one, or (a code) wrong.
        package static let emailVerificationInvalid = Code(.emailVerificationInvalid)
        /// An address verification's link or code expired.
        package static let emailVerificationExpired = Code(.emailVerificationExpired)
        /// Too many codes were tried against one address verification (counted on every node); ask for a new one.
        package static let emailVerificationLocked = Code(.emailVerificationLocked)
        /// A recovery link sent by email is unknown, spent, expired, or its address is no longer the account's.
        package static let recoveryLinkInvalid = Code(.recoveryLinkInvalid)
        /// A hand-off session (started from a hand-off link) asked for a hand-off link: only the app's session makes one.
        package static let handoffFromHandoff = Code(.handoffFromHandoff)
        package static let internalError = Code(.internalError)
        /// The database cannot be reached; retry.
        package static let storageUnavailable = Code(.storageUnavailable)
        /// Apple's keys cannot be fetched; nothing is accepted without them; retry.
        package static let appleUnavailable = Code(.appleUnavailable)
        /// `GET /readyz`: a readiness check failed; `failing` names it.
        package static let notReady = Code(.notReady)
        /// An admin API call without a valid admin key (`Authorization: Bearer`); which of the two goes to the log.
        package static let adminUnauthorized = Code(.adminUnauthorized)
        /// The admin API names an account that does not exist.
        package static let userNotFound = Code(.userNotFound)
        /// A `cursor` this server did not give (or for another query).
        package static let invalidCursor = Code(.invalidCursor)
        /// No dead webhook delivery has that ID (only a dead one can be queued again).
        package static let deliveryNotFound = Code(.deliveryNotFound)
        /// The signed-in account has no session with that ID.
        package static let sessionNotFound = Code(.sessionNotFound)
        /// The enrollment link is unknown, was used, or its account is gone.
        package static let enrollmentLinkInvalid = Code(.enrollmentLinkInvalid)
        /// passkeyd was asked to send a message it does not send: no `email` block, or that message switched off.
        package static let emailNotConfigured = Code(.emailNotConfigured)
        /// passkeyd was asked to mail an account that has no verified email address.
        package static let emailNotVerified = Code(.emailNotVerified)
        /// The enrollment link expired.
        package static let enrollmentLinkExpired = Code(.enrollmentLinkExpired)
        /// The username and recovery code do not match an unused code (an unknown username reads the same).
        package static let recoveryCodeInvalid = Code(.recoveryCodeInvalid)
        /// `POST /auth/password`: no account has that name or email with an imported password hash that the password
        /// matches (every case reads the same).
        package static let passwordInvalid = Code(.passwordInvalid)
        /// `passwords.maximumConcurrentVerifications` verifications are running: refused at once, never queued.
        package static let passwordVerificationBusy = Code(.passwordVerificationBusy)
        /// A conditional registration (`"mediation": "conditional"`) without a password sign-in of the last
        /// `passwords.upgradeWindowSeconds`: the only session the user-presence exception is for.
        package static let passkeyUpgradeNotAllowed = Code(.passkeyUpgradeNotAllowed)
        /// A password session under `passwords.session: upgradeOnly` called anything but adding a passkey, `GET /me` or
        /// `POST /logout`.
        package static let passwordSessionRestricted = Code(.passwordSessionRestricted)
        /// A recovery code's session may only register a passkey and read `/me` (and sign out).
        package static let recoverySessionRestricted = Code(.recoverySessionRestricted)
        /// `POST /admin/import`, `passkeyd admin import`: a line (`line`, `member`) is not a record this server takes.
        package static let importInvalid = Code(.importInvalid)

        /// An access token was sent where only the session token will do (account management, minting).
        package static let insufficientScope = Code(.insufficientScope)
        /// `POST /introspect` without one of the configured backend keys.
        package static let invalidBackendKey = Code(.invalidBackendKey)

        // The OpenID provider's codes: OAuth's own (RFC 6749 §4.1.2.1, §5.2; OpenID Connect Core §3.1.2.6; RFC 6750 §3.1).
        /// The token or revocation endpoint could not authenticate the client (unknown, wrong secret, or a public
        /// client sending one); at `/oauth/authorize`, an unknown `client_id`: an error page, never a redirect.
        package static let invalidClient = Code(.invalidClient)
        /// `/oauth/authorize` with a `redirect_uri` the client did not register: an error page, never a redirect.
        package static let invalidRedirectURI = Code(.invalidRedirectURI)
        /// The authorization code or refresh token is unknown, used, expired, another client's, or its PKCE verifier or
        /// redirect URI does not match.
        package static let invalidGrant = Code(.invalidGrant)
        /// A `grant_type` other than `authorization_code` and `refresh_token`.
        package static let unsupportedGrantType = Code(.unsupportedGrantType)
        /// A `response_type` other than `code` (sent to the redirect URI).
        package static let unsupportedResponseType = Code(.unsupportedResponseType)
        /// A scope without `openid`, or one the client may not ask for (sent to the redirect URI).
        package static let invalidScope = Code(.invalidScope)
        /// `prompt=none` and nobody is signed in (or the sign-in is older than `max_age`) (sent to the redirect URI).
        package static let loginRequired = Code(.loginRequired)
        /// The person cancelled the sign-in page (sent to the redirect URI).
        package static let accessDenied = Code(.accessDenied)
        /// `prompt=none` and the client needs the person's consent first (sent to the redirect URI).
        package static let consentRequired = Code(.consentRequired)
        /// `POST /auth/apple/callback`: the form's `state` is missing, unknown, used, expired or not this browser's.
        package static let appleStateInvalid = Code(.appleStateInvalid)
        /// Apple's web flow came back with an `error` (the person cancelled at Apple).
        package static let appleSignInCancelled = Code(.appleSignInCancelled)
        /// `GET /auth/apple/start`: a `return` or `cancel` that is not a path on this server.
        package static let invalidReturnPath = Code(.invalidReturnPath)
        /// `/oauth/userinfo` without a live access token of an OpenID client.
        package static let invalidToken = Code(.invalidToken)
        /// `POST /email/events/{provider}`: the notification is not authenticated as its provider documents (a
        /// signature that does not match, a stale timestamp, a token used before, other Basic credentials).
        package static let emailEventUnauthenticated = Code(.emailEventUnauthenticated)
        /// `POST /email/events/{provider}`: the notification is larger than any provider's (64 KiB).
        package static let emailEventTooLarge = Code(.emailEventTooLarge)

        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        package static var allCases: [Code] { Base.allCases.map(Code.init) }

        /// The table: each code's HTTP status and client-safe message (stable, for people, no internal detail).
        package var answer: (status: Int, message: String) {
            switch base {
            case .invalidJSON: (400, "The request body is not the JSON this endpoint expects.")
            case .invalidRequest: (400, "The request has a missing or invalid member.")
            case .invalidUsername: (400, "The username must be 1 to 64 characters, without control characters.")
            case .usernameMixedScripts: (400, "The username mixes letters of different scripts; use one script.")
            case .unsupportedMediaType: (415, "Send the request body as application/json.")
            case .challengeUnknown: (400, "This challenge was not issued by this server, or was already used.")
            case .challengeExpired: (400, "The challenge expired; start again.")
            case .verificationFailed: (400, "The passkey's answer did not pass verification.")
            case .userVerificationRequired: (400, "Your authenticator must verify you (PIN or biometrics).")
            case .originMismatch: (400, "The request came from a page this server does not serve.")
            case .algorithmNotAllowed: (400, "The passkey uses an algorithm this server does not accept.")
            case .credentialUnknown: (400, "This passkey is not registered here.")
            case .possibleClone: (401, "This passkey's signature counter went backwards; sign-in was refused.")
            case .passkeyChanged: (409, "The passkey changed while signing in; sign in again.")
            case .notSignedIn: (401, "Sign in first.")
            case .invalidIdentityToken: (401, "The identity token was not accepted.")
            case .notFound: (404, "There is nothing here.")
            case .notConfigured: (404, "This server does not publish this file: its configuration does not set the key named in key.")
            case .passkeyNotFound: (404, "You have no passkey with that ID.")
            case .methodNotAllowed: (405, "This path does not take that method.")
            case .usernameTaken: (409, "That username is taken.")
            case .usernameConfusable: (409, "That username looks like one that is taken.")
            case .externalIdTaken: (409, "Another account has that externalId.")
            case .credentialExists: (409, "This passkey is already registered.")
            case .lastCredential: (409, "You can't delete your only passkey.")
            case .passkeyLimitReached: (409, "This account has as many passkeys as it may; delete one to add another.")
            case .appleIdentityTaken: (409, "This Apple ID is linked to another account; merge the two with the mergeToken.")
            case .lastSignInMethod: (409, "This is your only way to sign in; add a passkey before removing it.")
            case .mergeConflict: (409, "Choose which of the two accounts to keep.")
            case .mergeSameAccount: (400, "That proof is for the account you are signed in to.")
            case .mergeProofRejected: (400, "The proof does not identify another account, or it expired.")
            case .appleIdentityNotFound: (404, "Your account has no Apple ID with that identifier.")
            case .handoffCodeInvalid: (400, "This sign-in link is unknown, used or expired.")
            case .rateLimited: (429, "Too many attempts; wait a moment.")
            case .appleNotConfigured: (400, "Sign in with Apple is not set up on this server.")
            case .invalidNotification: (400, "The body is not a signed Apple notification.")
            case .internalError: (500, "The server could not complete the request.")
            case .storageUnavailable: (503, "The server's database failed; try again shortly.")
            case .appleUnavailable: (503, "Apple cannot be reached right now; try again shortly.")
            case .notReady: (503, "The server is not ready to serve; failing names the check.")
            case .adminUnauthorized: (401, "The admin API needs an admin key: Authorization: Bearer <key>.")
            case .userNotFound: (404, "There is no account with that ID.")
            case .invalidCursor: (400, "The cursor is not one this server gave for this query.")
            case .deliveryNotFound: (404, "There is no dead webhook delivery with that ID.")
            case .sessionNotFound: (404, "You have no session with that ID.")
            case .enrollmentLinkInvalid: (400, "This enrollment link is not valid, or was already used.")
            case .emailNotConfigured: (400, "This server does not send this message by email.")
            case .emailNotVerified: (409, "The account has no verified email address to send to.")
            case .enrollmentLinkExpired: (400, "This enrollment link expired; ask for a new one.")
            case .recoveryCodeInvalid: (401, "The username or recovery code is not valid.")
            case .passwordInvalid: (401, "The username or password is not valid.")
            case .passwordVerificationBusy: (503, "Too many password sign-ins at once; try again in a second.")
            case .passwordSessionRestricted: (403, "This session can only add a passkey and read the account; add a passkey first.")
            case .passkeyUpgradeNotAllowed: (403, "An automatic passkey upgrade follows a password sign-in of the last few minutes only.")
            case .recoverySessionRestricted: (403, "A recovery session can only add a passkey and read the account; add a passkey first.")
            case .insufficientScope: (403, "An access token cannot do this; use the session token.")
            case .invalidBackendKey: (401, "Send a configured backend key as the bearer token.")
            case .importInvalid: (400, "A line of the import is not a record this server can take; line and member name it.")
            case .invalidClient: (401, "The client is unknown or did not authenticate.")
            case .invalidRedirectURI: (400, "The redirect_uri is not one the client registered.")
            case .invalidGrant: (400, "The code or refresh token is not valid for this client.")
            case .unsupportedGrantType: (400, "Only the authorization_code and refresh_token grants are supported.")
            case .unsupportedResponseType: (400, "Only response_type=code is supported.")
            case .invalidScope: (400, "The scope must include openid and only scopes the client may ask for.")
            case .loginRequired: (400, "Nobody is signed in.")
            case .accessDenied: (400, "The person did not sign in.")
            case .consentRequired: (400, "The person has not allowed this app yet.")
            case .appleStateInvalid: (400, "This Sign in with Apple answer is not one this browser started, or it was already used; start again.")
            case .appleSignInCancelled: (400, "Sign in with Apple was cancelled.")
            case .invalidReturnPath: (400, "The return address must be a path on this server.")
            case .invalidToken: (401, "The access token is not valid.")
            case .identityProviderNotFound: (404, "This server has no identity provider of that name.")
            case .identityTaken: (409, "This identity is linked to another account; merge the two with the mergeToken.")
            case .identityNotFound: (404, "Your account has no identity with that provider and identifier.")
            case .identityProviderUnavailable: (503, "The identity provider cannot be reached right now; try again shortly.")
            case .identityStateInvalid:
                (400, "This sign-in answer is not one this browser started with this provider, or it was already used; start again.")
            case .identityIssuerMismatch: (400, "The sign-in answer came from another issuer than the provider's.")
            case .identitySignInCancelled: (400, "The sign-in with the provider was cancelled.")
            case .unknownMember: (400, "The request has a member this call does not take; member names it.")
            case .accountDisabled: (403, "This account is disabled.")
            case .emailVerificationInvalid: (400, "This link or code is not valid: it was used, replaced by a newer one, or mistyped.")
            case .emailVerificationExpired: (400, "This link or code expired; ask for a new one.")
            case .emailVerificationLocked: (400, "Too many wrong codes; ask for a new one.")
            case .recoveryLinkInvalid: (400, "This recovery link is not valid: it was used, expired, or replaced by a newer one.")
            case .handoffFromHandoff: (403, "A session started from a sign-in link cannot make another one.")
            case .emailEventUnauthenticated: (401, "This notification is not authenticated as its provider's.")
            case .emailEventTooLarge: (413, "This notification is larger than any provider sends.")
            }
        }
    }

    /// A second status for a code that means the same to a client in two situations: the body's `error` is the
    /// code's, the status and message are the variant's. Only these two exist; the table's row is the first status.
    package enum Variant: CaseIterable, Sendable {
        /// `origin_mismatch` 403: a cookie-authenticated write whose `Origin` is not one of the site's.
        case crossOriginWrite
        /// `invalid_notification` 401: a well-formed Apple notification whose signature or claims do not verify.
        case unverifiedNotification

        package var code: Code {
            switch self {
            case .crossOriginWrite: .originMismatch
            case .unverifiedNotification: .invalidNotification
            }
        }

        package var answer: (status: Int, message: String) {
            switch self {
            case .crossOriginWrite: (403, "This request must come from the site's own pages.")
            case .unverifiedNotification: (401, "The Apple notification could not be verified.")
            }
        }
    }

    public let code: Code
    public let status: Int
    public internal(set) var message: String
    /// The step that failed (a core or storage code), returned to the client for debugging; never secret.
    package var step: String?
    /// The request member at fault (`residentKey`, `response.clientDataJSON`), returned to the client; never a value.
    package var member: String?
    /// The configuration key that would publish a missing well-known file (`associatedDomains.android`).
    package var key: String?
    /// Detail for the server log only (logged with 5xx answers); never secrets or personal data.
    public internal(set) var detail: String?
    /// Extra headers (`Set-Cookie` to clear a dead session, `Retry-After`, `Allow`).
    package var headers: [(String, String)] = []
    /// Extra members of the body for a client to act on (the `mergeToken` of `apple_identity_taken`, the account
    /// summaries of `merge_conflict`); never internal detail.
    package var members: [String: JSONValue] = [:]

    package init(_ code: Code, member: String? = nil, detail: String? = nil) {
        self.code = code
        (status, message) = code.answer
        self.member = member
        self.detail = detail
    }

    package init(_ variant: Variant) {
        code = variant.code
        (status, message) = variant.answer
    }

    /// The `Retry-After` header a `storage_unavailable` answer (JSON or an error page) carries, unless it has its own.
    package var storageRetryAfter: (name: String, value: String)? {
        guard code == .storageUnavailable, !headers.contains(where: { $0.0.lowercased() == "retry-after" }) else { return nil }
        return ("Retry-After", String(Self.storageRetryAfterSeconds))
    }

    /// The error as OAuth's token and revocation endpoints answer it (RFC 6749 §5.2, RFC 7009 §2.2.1): `error` and
    /// `error_description` (the message, which is client-safe), besides `message`.
    package func describedForOAuth() -> ServerError {
        var described = self
        described.members["error_description"] = .string(message)
        return described
    }

    /// `code: message`, and the member at fault: what `passkeyd admin` prints.
    public var description: String { "\(code): \(message)" + (member.map { " (\($0))" } ?? "") }

    package var response: HTTPResponse {
        var body = members
        body["error"] = .string(code.rawValue)
        body["message"] = .string(message)
        if let step { body["step"] = .string(step) }
        if let member { body["member"] = .string(member) }
        if let key { body["key"] = .string(key) }
        var response = HTTPResponse.json(status: status, JSONBody.encode(body))
        for (name, value) in headers { response.headers.add(name, value) }
        if let retryAfter = storageRetryAfter { response.headers.add(retryAfter.name, retryAfter.value) }
        return response
    }
}
