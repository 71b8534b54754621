import AppleSignIn
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability
import RateLimiting
import Storage
import WebAuthnCore

/// Sign in with Apple from an app (the native flow): the single-use nonce, and the sign-in with an identity token that
/// signs in the identity's account, links the identity to the signed-in one, or creates an account.
struct AppleSignInController: Sendable {
    /// The body of `POST /auth/apple`. An `email` member is ignored like any other unknown member: the email comes
    /// from the verified token only.
    struct AppleSignInRequest: Decodable {
        var identityToken: String
        var rawNonce: String
        var authorizationCode: String?
        /// As sent: an object of name components (`givenName`, `familyName`, …) or a formatted string. A name that is
        /// not usable is dropped (`AppleAccountResolver.displayName`), never refused.
        var fullName: JSONValue?
    }

    struct AppleNonceResponse: Encodable {
        let nonce: String
        let expiresAt: Date
    }

    static let maximumRawNonceLength = 512
    static let maximumAuthorizationCodeLength = 2048
    /// `linkSuggestion` when another account holds the same verified email.
    static let matchingEmailSuggestion = "matching_email"

    let resolver: AppleAccountResolver
    let challenges: ChallengeService
    let accounts: SignedInAccounts
    let signInAnswers: SignInAnswers
    let limits: RequestLimits
    let mergeTokens: MergeTokens
    let time: any TimeSource
    let log: Logger

    /// `POST /auth/apple/nonce`: a single-use raw nonce; the app passes its SHA-256 (hex) to Apple.
    func nonce(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        _ = try resolver.configuredApple()
        try limits.take(.challenges, key: limits.clientAddress(request))
        let issued = try challenges.issueAppleNonce()
        return JSONBody.ok(AppleNonceResponse(nonce: issued.rawNonce, expiresAt: issued.expiresAt))
    }

    /// `POST /auth/apple`: verifies the identity token and signs in the identity's account (re-keying one found by its
    /// `transfer_sub`), links the identity to the signed-in account, or creates an account. An identity of another
    /// account is `409 apple_identity_taken` with a merge token.
    func signIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let provider = try resolver.configuredProvider()
        let apple = provider.integration
        let body = try JSONBody.decode(AppleSignInRequest.self, from: request)
        guard !body.rawNonce.isEmpty, body.rawNonce.utf8.count <= Self.maximumRawNonceLength else {
            throw ServerError(.invalidRequest, member: "rawNonce")
        }
        if let code = body.authorizationCode, code.utf8.count > Self.maximumAuthorizationCodeLength {
            throw ServerError(.invalidRequest, member: "authorizationCode")
        }
        let displayName = resolver.displayName(body.fullName)
        let caller = context.session == nil ? nil : try accounts.user(request, context, writing: true)
        let identity = try provider.verify(body.identityToken, rawNonce: body.rawNonce)
        let token = identity.claims
        let replay = try resolver.replayGuard(rawNonce: body.rawNonce, identityToken: body.identityToken, token: token, apple: apple)
        let now = time.now
        let sign = AppleAccountResolver.SignIn(
            provider: provider,
            identity: identity,
            displayName: displayName,
            signedInOwner: caller?.user,
            replay: replay,
            now: now
        )
        let outcome = try resolver.signIn(sign, request: request)
        switch outcome {
        case .replayed:
            log("apple sign-in refused: the raw nonce or the identity token was already used", event: "apple")
            throw ServerError(.invalidIdentityToken)
        case .taken(let otherUserID):
            guard let caller else { throw ServerError(.appleIdentityTaken) }
            var error = ServerError(.appleIdentityTaken)
            error.members = try mergeTokens.members(current: caller.user.id, other: otherUserID, session: caller.signedIn.session)
            throw error
        case .signedIn(let user, let isNewAccount, let suggestion, let issued):
            if let code = body.authorizationCode, !code.isEmpty,
                let clientID = token.audiences.first(where: apple.configuration.audiences.contains)
            {
                apple.enqueueCodeExchange(code: code, subject: token.subject, clientID: clientID)
            }
            var answer = SignedInResponse(user: user, issued: issued)
            answer.isNewAccount = isNewAccount
            answer.appleUserID = token.subject
            answer.linkSuggestion = suggestion ? Self.matchingEmailSuggestion : nil
            return try signInAnswers.answer(answer, user: user, issued: issued)
        }
    }
}
