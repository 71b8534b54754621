import CryptoCore
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import RateLimiting
import Storage

/// Native sign-in with an OpenID provider (Google Sign-In on iOS, Credential Manager on Android, any issuer's ID
/// token): the single-use nonce, and the sign-in with an ID token that signs in the identity's account, links the
/// identity to the signed-in one, or creates an account.
struct FederatedSignInController: Sendable {
    /// The body of `POST /auth/{provider}`.
    struct SignInRequest: Decodable {
        var idToken: String
        /// Required, but for a bridge provider's token (the app's previous auth system's), which no request of this
        /// server made.
        var rawNonce: String?
    }

    struct NonceResponse: Encodable {
        let nonce: String
        let expiresAt: Date
    }

    let providers: IdentityProviders
    let resolver: FederatedAccountResolver
    let challenges: ChallengeService
    let accounts: SignedInAccounts
    let signInAnswers: SignInAnswers
    let limits: RequestLimits
    let mergeTokens: MergeTokens
    let time: any TimeSource
    let log: Logger

    /// `POST /auth/{provider}/nonce`: a single-use raw nonce; the app passes its SHA-256 (lowercase hex) to the
    /// provider as the request's `nonce` and sends the raw nonce with the ID token.
    func nonce(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        _ = try providers.provider(named: context.identifier)
        try limits.take(.challenges, key: limits.clientAddress(request))
        let issued = try challenges.issueAppleNonce()
        return JSONBody.ok(NonceResponse(nonce: issued.rawNonce, expiresAt: issued.expiresAt))
    }

    /// `POST /auth/{provider}`: verifies the ID token and signs in the identity's account, links the identity to the
    /// signed-in account, or creates an account. An identity of another account is `409 identity_taken` with a merge
    /// token; a replayed token or nonce is `401 invalid_identity_token`.
    func signIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let provider = try providers.provider(named: context.identifier)
        let body = try JSONBody.decode(SignInRequest.self, from: request)
        if let rawNonce = body.rawNonce {
            guard !rawNonce.isEmpty, rawNonce.utf8.count <= AppleSignInController.maximumRawNonceLength else {
                throw ServerError(.invalidRequest, member: "rawNonce")
            }
        } else {
            guard provider.settings.bridge else { throw ServerError(.invalidRequest, member: "rawNonce") }
        }
        guard !body.idToken.isEmpty else { throw ServerError(.invalidRequest, member: "idToken") }
        let caller = context.session == nil ? nil : try accounts.user(request, context, writing: true)
        let identity = try provider.verified(body.idToken, rawNonce: body.rawNonce)
        let replay = try resolver.replayGuard(
            rawNonce: body.rawNonce,
            idToken: body.idToken,
            identity: identity,
            leeway: provider.verifier.leewaySeconds
        )
        let sign = FederatedAccountResolver.SignIn(
            provider: provider,
            identity: identity,
            signedInOwner: caller?.user,
            replay: replay,
            now: time.now
        )
        switch try resolver.signIn(sign, request: request) {
        case .replayed:
            log("identity sign-in refused (\(provider.name)): the raw nonce or the ID token was already used", event: "identity")
            throw ServerError(.invalidIdentityToken)
        case .taken(let otherUserID):
            guard let caller else { throw ServerError(.identityTaken) }
            var error = ServerError(.identityTaken)
            error.members = try mergeTokens.members(current: caller.user.id, other: otherUserID, session: caller.signedIn.session)
            throw error
        case .signedIn(let user, let isNewAccount, let suggestion, let issued):
            var answer = SignedInResponse(user: user, issued: issued)
            answer.isNewAccount = isNewAccount
            answer.linkSuggestion = suggestion ? AppleSignInController.matchingEmailSuggestion : nil
            return try signInAnswers.answer(answer, user: user, issued: issued)
        }
    }
}
