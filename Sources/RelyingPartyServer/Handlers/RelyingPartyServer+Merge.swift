import AppleSignIn
import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
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

    /// The other account of a merge, as its proof identified it, and what accepting the proof writes.
    struct MergeProof {
        enum Acceptance {
            /// Nothing to write: a merge token is single-use by being taken.
            case taken
            /// An Apple identity token: its nonce and itself are remembered.
            case apple(AppleReplayGuard)
            /// A passkey assertion: its counter and flags are recorded (§7.2 step 23 checked again at the write).
            case passkey(AuthenticationUpdate, owner: [UInt8])
        }

        let otherUserID: [UInt8]
        let acceptance: Acceptance

        /// Writes what accepting the proof writes, in the merge's transaction; false when it was replayed or the
        /// passkey's counter did not increase after all.
        func accept(in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Bool {
            switch acceptance {
            case .taken:
                return true
            case .apple(let replay):
                return try replay.remember(in: transaction, now: now)
            case .passkey(let update, let owner):
                guard let credential = try transaction.credential(id: update.credentialID), credential.userID == owner else { return false }
                guard update.signCount == 0 && credential.signCount == 0 || update.signCount > credential.signCount else { return false }
                try transaction.recordAuthentication(update)
                return true
            }
        }
    }

    /// One account of a `merge_conflict`: what a person needs to choose, and nothing that identifies it.
    struct MergeSummary: Encodable {
        let createdAt: Date
        let lastSignInAt: Date?
        let passkeys: Int
        let appleLinked: Bool
    }

    /// `POST /me/merge`: merges the account a proof identifies with the signed-in one. Without `keep`, `409
    /// merge_conflict` with both accounts' summaries and a merge token; with it, one transaction moves every passkey
    /// and Apple identity to the survivor and deletes the other account with its sessions.
    func merge(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, caller) = try signedInUser(request, context, writing: true)
        let body = try JSONBody.decode(MergeRequest.self, from: request)
        let proof = try mergeProof(body.proof, user: user, session: caller.session)
        guard proof.otherUserID != user.id else { throw ServerError(.mergeSameAccount) }
        let now = time.now
        guard let keep = body.keep else {
            let summaries = try storage {
                try store.transaction { transaction throws(StorageError) -> [String: MergeSummary]? in
                    guard try proof.accept(in: transaction, now: now) else { return nil }
                    guard let current = try summary(of: user.id, in: transaction), let other = try summary(of: proof.otherUserID, in: transaction)
                    else { return [:] }
                    return ["current": current, "other": other]
                }
            }
            guard let summaries else { throw ServerError(.mergeProofRejected) }
            guard !summaries.isEmpty else { throw ServerError(.mergeProofRejected) }
            var error = ServerError(.mergeConflict)
            error.members = try MergeTokens(challenges: challenges).members(current: user.id, other: proof.otherUserID, session: caller.session)
            error.members["accounts"] = JSONBody.tree(summaries)
            throw error
        }
        let (survivorID, goneID) = keep == .current ? (user.id, proof.otherUserID) : (proof.otherUserID, user.id)
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> (UserRecord, SessionService.Issued?)? in
                guard try proof.accept(in: transaction, now: now) else { return nil }
                return try merge(goneID, into: survivorID, continuing: caller.session, in: transaction, request: request, now: now)
            }
        }
        guard let (survivor, issued) = outcome else { throw ServerError(.mergeProofRejected) }
        log("accounts merged", event: "account")
        var answer = SignedInResponse(user: survivor, issued: issued)
        answer.previousUserId = Base64URL.encode(goneID)
        return try signedIn(answer, user: survivor, issued: issued, continuing: issued == nil ? caller.session : nil)
    }

    /// The merge's writes: the survivor receives every passkey and Apple identity of the other account (and its
    /// display name or email when its own are a default or absent), the other account is deleted with its sessions
    /// (no Apple revocation: its identities moved), and a session for the survivor continues the signed-in one when
    /// that was the other account's. Nil, changing nothing, when either account is gone.
    func merge(
        _ goneID: [UInt8],
        into survivorID: [UInt8],
        continuing current: SessionRecord,
        in transaction: any StoreTransaction,
        request: HTTPRequest,
        now: Date
    ) throws(StorageError) -> (UserRecord, SessionService.Issued?)? {
        guard var survivor = try transaction.user(id: survivorID), let gone = try transaction.user(id: goneID) else { return nil }
        var events: [AccountEvent] = []
        _ = try transaction.moveCredentials(from: goneID, to: survivorID)
        _ = try transaction.moveAppleIdentities(from: goneID, to: survivorID)
        for session in try transaction.deleteSessions(userID: goneID, except: nil) {
            events.append(.sessionRevoked(session, reason: .merged))
        }
        let name = gone.displayNameIsDefault ? nil : gone.displayName
        if let update = survivor.filledIn(displayName: name, email: gone.email, emailVerified: gone.emailVerified) {
            _ = try transaction.updateUser(update.user)
            survivor = update.user
            events.append(.userUpdated(userID: survivorID, changes: update.changes))
        }
        _ = try transaction.deleteUser(id: goneID)
        events.append(.userMerged(userID: survivorID, previousUserID: goneID))
        var issued: SessionService.Issued?
        if current.userID == goneID {
            let session = sessions.prepare(continuing: current, for: survivorID, request: request)
            try transaction.insertSession(session.record)
            events.append(.sessionCreated(session.record))
            issued = session.issued
        }
        try transaction.appendEvents(events.map { $0.event(at: now) })
        return (survivor, issued)
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
            let resolver = controllers.appleSignIn.resolver
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
            return MergeProof(otherUserID: assertion.user.id, acceptance: .passkey(assertion.update(at: time.now), owner: assertion.user.id))
        default:
            throw ServerError(.invalidRequest, member: "proof")
        }
    }

    /// An account's merge summary, or nil when it is gone.
    func summary(of userID: [UInt8], in transaction: any StoreTransaction) throws(StorageError) -> MergeSummary? {
        guard let user = try transaction.user(id: userID) else { return nil }
        let credentials = try transaction.credentials(userID: userID)
        let identities = try transaction.appleIdentities(userID: userID)
        return MergeSummary(
            createdAt: user.createdAt,
            lastSignInAt: (credentials.compactMap(\.lastUsedAt) + identities.compactMap(\.lastSignInAt)).max(),
            passkeys: credentials.count,
            appleLinked: !identities.isEmpty
        )
    }
}
