import Foundation

/// Every failure of `PasskeydClient`: passkeyd's answer `{"error": code, "message": …}` with its stable code, or a
/// failure on this side (no connection, an answer that is not passkeyd's, options a platform authenticator cannot use).
/// Compare codes, never messages: `error.code == .usernameTaken`.
public struct PasskeydError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes. A server code's `rawValue` is its wire form (passkeyd's docs/reference/errors.md); the codes
    /// this side makes start with `client.`.
    public enum Code: String, Sendable, CaseIterable, Codable {
        // passkeyd's API (Sources/RelyingPartyServer/ServerError.swift).
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
        case adminUnauthorized = "admin_unauthorized"
        case userNotFound = "user_not_found"
        case invalidCursor = "invalid_cursor"
        case deliveryNotFound = "delivery_not_found"
        case sessionNotFound = "session_not_found"
        case enrollmentLinkInvalid = "enrollment_link_invalid"
        case enrollmentLinkExpired = "enrollment_link_expired"
        case recoveryCodeInvalid = "recovery_code_invalid"
        case recoverySessionRestricted = "recovery_session_restricted"
        case passwordInvalid = "password_invalid"
        case passwordVerificationBusy = "password_verification_busy"
        case passwordSessionRestricted = "password_session_restricted"
        case passkeyUpgradeNotAllowed = "passkey_upgrade_not_allowed"
        case identityProviderNotFound = "identity_provider_not_found"
        case identityTaken = "identity_taken"
        case identityNotFound = "identity_not_found"
        case identityProviderUnavailable = "identity_provider_unavailable"
        case identityStateInvalid = "identity_state_invalid"
        case identityIssuerMismatch = "identity_issuer_mismatch"
        case identitySignInCancelled = "identity_sign_in_cancelled"
        case insufficientScope = "insufficient_scope"
        case invalidBackendKey = "invalid_backend_key"
        case importInvalid = "import_invalid"
        case unknownMember = "unknown_member"
        case accountDisabled = "account_disabled"
        case emailNotConfigured = "email_not_configured"
        case emailNotVerified = "email_not_verified"
        case emailVerificationInvalid = "email_verification_invalid"
        case emailVerificationExpired = "email_verification_expired"
        case emailVerificationLocked = "email_verification_locked"
        case recoveryLinkInvalid = "recovery_link_invalid"
        case handoffFromHandoff = "handoff_from_handoff"
        // The providers' bounce webhooks (`POST /email/events/{provider}`), answered to the provider, never to an app.
        case emailEventUnauthenticated = "email_event_unauthenticated"
        case emailEventTooLarge = "email_event_too_large"
        case consentRequired = "consent_required"
        // passkeyd's OpenID provider (/oauth/*), OAuth's own codes (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1).
        case invalidClient = "invalid_client"
        case invalidRedirectURI = "invalid_redirect_uri"
        case invalidGrant = "invalid_grant"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case invalidScope = "invalid_scope"
        case loginRequired = "login_required"
        case accessDenied = "access_denied"
        case appleStateInvalid = "apple_state_invalid"
        case appleSignInCancelled = "apple_sign_in_cancelled"
        case invalidReturnPath = "invalid_return_path"
        case invalidToken = "invalid_token"
        // /readyz (503).
        case notReady = "not_ready"
        // passkeyd's HTTP layer, before any handler.
        case badRequest = "bad_request"
        case requestTooLarge = "request_too_large"
        case expectationFailed = "expectation_failed"
        case httpError = "http_error"
        case serverBusy = "server_busy"
        // This side.
        /// No answer: the network, TLS or the server's address.
        case network = "client.network"
        /// An answer that is not passkeyd's JSON (a proxy's page, a body of another shape).
        case invalidResponse = "client.invalidResponse"
        /// An error code this version does not know (`serverCode` holds it).
        case unrecognized = "client.unrecognized"
        /// Options a platform authenticator cannot take (no ES256, a challenge that is not base64url …).
        case invalidOptions = "client.invalidOptions"
        /// The authenticator's result lacks what passkeyd must verify (no attestation object).
        case incompleteCredential = "client.incompleteCredential"
        /// The token store failed to read or write.
        case tokenStore = "client.tokenStore"
    }

    public let code: Code
    /// The HTTP status, when passkeyd answered.
    public let status: Int?
    /// The code as the server sent it (differs from `code.rawValue` only for `.unrecognized`).
    public let serverCode: String?
    /// The server's sentence for people, or this side's.
    public let message: String
    /// The WebAuthn step that failed (`clientData.originMismatch`), for verification failures.
    public let step: String?
    /// The request member at fault (`username`, `response.clientDataJSON`).
    public let member: String?
    /// `apple_identity_taken` and `merge_conflict`: the single-use token for `merge(proof: .mergeToken(…))`.
    public let mergeToken: String?
    /// `merge_conflict`: the two accounts, for the person to choose which to keep.
    public let accounts: MergeConflictAccounts?
    /// `rate_limited`: seconds to wait, from `Retry-After`.
    public let retryAfterSeconds: Int?

    public init(
        _ code: Code,
        message: String,
        status: Int? = nil,
        serverCode: String? = nil,
        step: String? = nil,
        member: String? = nil,
        mergeToken: String? = nil,
        accounts: MergeConflictAccounts? = nil,
        retryAfterSeconds: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.serverCode = serverCode
        self.step = step
        self.member = member
        self.mergeToken = mergeToken
        self.accounts = accounts
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String {
        "\(serverCode ?? code.rawValue)\(status.map { " (\($0))" } ?? ""): \(message)"
    }

    /// The error of a failed answer: passkeyd's error body when it is one, else `invalidResponse`.
    static func answer(status: Int, body: Data, retryAfter: String?) -> PasskeydError {
        struct Body: Decodable {
            let error: String
            let message: String?
            let step: String?
            let member: String?
            let mergeToken: String?
            let accounts: MergeConflictAccounts?
        }
        guard let decoded = try? JSONDecoder.passkeyd.decode(Body.self, from: body) else {
            return PasskeydError(.invalidResponse, message: "HTTP \(status) without passkeyd's error body", status: status)
        }
        return PasskeydError(
            Code(rawValue: decoded.error).flatMap { $0.rawValue.hasPrefix("client.") ? nil : $0 } ?? .unrecognized,
            message: decoded.message ?? "",
            status: status,
            serverCode: decoded.error,
            step: decoded.step,
            member: decoded.member,
            mergeToken: decoded.mergeToken,
            accounts: decoded.accounts,
            retryAfterSeconds: retryAfter.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        )
    }
}
