import Accounts
import AppleSignIn
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage
import WebAuthnCore

/// Merging two accounts (`POST /me/merge`): the proof of the other account, the `409 merge_conflict` that lets a
/// person choose which account survives, and the merge itself (`AccountService.merge`).
struct MergeController: Sendable {
    /// The body of `POST /me/merge`: one proof of the other account, and which account survives.
    struct MergeRequest: Decodable {
        struct Proof: Decodable {
            struct Apple: Decodable {
                var identityToken: String
                var rawNonce: String
            }

            var mergeToken: String?
            var apple: Apple?
            var passkey: AuthenticationResponseJSON?
        }

        var proof: Proof
        var keep: Keep?
    }

    /// Which account a merge keeps.
    enum Keep: String, Decodable {
        case current, other
    }

    let store: any PasskeyStore
    let time: any TimeSource
    let sessions: SessionService
    let challenges: ChallengeService
    let accounts: SignedInAccounts
    let service: AccountService
    /// §7.2 on the assertion of a passkey proof.
    let assertions: AssertionVerifier
    /// Verifies an Apple proof and finds the identity it names.
    let resolver: AppleAccountResolver
    let answers: SignInAnswers

    /// `POST /me/merge`: merges the account a proof identifies with the signed-in one. Without `keep`, `409
    /// merge_conflict` with both accounts' summaries and a merge token, unless the signed-in account holds nothing to
    /// lose (`AccountService.holdsNothingToLose`: the other one survives); with it, one transaction moves every passkey
    /// and Apple identity to the survivor and deletes the other account with its sessions.
    func merge(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try accounts.user(request, context, writing: true)
        let body = try JSONBody.decode(MergeRequest.self, from: request)
        let proof = try mergeProof(body.proof, user: user, session: caller.session)
        guard proof.otherUserID != user.id else { throw ServerError(.mergeSameAccount) }
        var chosen = body.keep
        if chosen == nil, try service.holdsNothingToLose(user, session: caller.session) { chosen = .other }
        guard let keep = chosen else {
            guard let (current, other) = try service.mergeSummaries(current: user.id, proof: proof) else {
                throw ServerError(.mergeProofRejected)
            }
            var error = ServerError(.mergeConflict)
            error.members = try MergeTokens(challenges: challenges).members(current: user.id, other: proof.otherUserID, session: caller.session)
            error.members["accounts"] = JSONBody.tree(["current": current, "other": other])
            throw error
        }
        let (survivorID, goneID) = keep == .current ? (user.id, proof.otherUserID) : (proof.otherUserID, user.id)
        // The signed-in session goes with its account: a session for the survivor continues it.
        let continuation = caller.session.userID == goneID ? sessions.prepare(continuing: caller.session, for: survivorID, request: request) : nil
        let outcome = try service.merge(goneID, into: survivorID, proof: proof, continuation: continuation)
        guard case .merged(let survivor, let issued) = outcome else { throw ServerError(.mergeProofRejected) }
        var answer = SignedInResponse(user: survivor, issued: issued)
        answer.previousUserId = Base64URL.encode(goneID)
        return try answers.answer(answer, user: survivor, issued: issued, continuing: issued == nil ? caller.session : nil)
    }

    /// The other account a proof identifies: a merge token issued to this account and session, an Apple identity
    /// token (with its raw nonce) of a linked identity, or a passkey assertion answering a challenge of
    /// `/webauthn/authentication/options`. Exactly one proof.
    func mergeProof(_ proof: MergeRequest.Proof, user: UserRecord, session: SessionRecord) throws(ServerError) -> MergeProof {
        switch (proof.mergeToken, proof.apple, proof.passkey) {
        case (let token?, nil, nil):
            guard let record = try challenges.redeemCode(token, kind: .merge), record.userID == user.id,
                let context = try? JSONDecoder().decode(MergeTokens.Context.self, from: Data(record.context)),
                context.sessionId == Base64URL.encode(session.id), let other = Base64URL.decode(context.otherUserId)
            else { throw ServerError(.mergeProofRejected) }
            return MergeProof(otherUserID: other, acceptance: .taken)
        case (nil, let apple?, nil):
            let integration = try resolver.configuredApple()
            guard !apple.rawNonce.isEmpty, apple.rawNonce.utf8.count <= AppleSignInController.maximumRawNonceLength else {
                throw ServerError(.invalidRequest, member: "proof.apple.rawNonce")
            }
            let token = try integration.verifyIdentityToken(apple.identityToken, rawNonce: apple.rawNonce)
            let replay = try resolver.replayGuard(rawNonce: apple.rawNonce, identityToken: apple.identityToken, token: token, apple: integration)
            let identity = try storage {
                try store.transaction { transaction throws(StorageError) in try resolver.identity(for: token, in: transaction) }
            }
            guard let identity else { throw ServerError(.mergeProofRejected) }
            return MergeProof(otherUserID: identity.userID, acceptance: .apple(replay))
        case (nil, nil, let passkey?):
            let assertion = try assertions.verify(passkey, deferringSpend: false)
            return MergeProof(
                otherUserID: assertion.stored.userID,
                acceptance: .passkey(assertion.update(at: time.now), owner: assertion.stored.userID)
            )
        default:
            throw ServerError(.invalidRequest, member: "proof")
        }
    }
}
