import AccountEvents
import Accounts
import CryptoCore
import Email
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import OpenIDConnect
import Storage

/// The account a verified ID token of an OpenID provider signs in, with the same rules as Sign in with Apple
/// (`AppleAccountResolver`): a linked identity signs in its account; a new one links to the signed-in account or makes
/// an account; an identity of another account than the signed-in one is refused for a merge. Email never links: a
/// verified email of a provider trusted for email (`trustEmail`) only suggests a link.
struct FederatedAccountResolver: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let sessions: SessionService
    /// The notices (`email`); nil sends none.
    let mail: MailComposer?

    /// What one sign-in writes, decided before its transaction.
    struct SignIn {
        let provider: OpenIDIdentityProvider
        let identity: VerifiedIdentity<IDTokenClaims>
        /// The account of the request's session, when it has one: a new identity links to it.
        let signedInOwner: UserRecord?
        let replay: AppleReplayGuard
        let now: Date
    }

    /// What the sign-in transaction found (as for Apple).
    typealias Outcome = AppleAccountResolver.Outcome

    /// The replay guard of a verified token: takes a server-issued nonce from the challenge store (an expired one is
    /// `401 invalid_identity_token`), and keys the nonce and the token until the token expires (plus the leeway), so
    /// that each is used once.
    func replayGuard(
        rawNonce: String?,
        idToken: String,
        identity: VerifiedIdentity<IDTokenClaims>,
        leeway: TimeInterval
    ) throws(ServerError)
        -> AppleReplayGuard
    {
        let now = time.now
        // A bridge token without a nonce is remembered by itself, under a second key of its own.
        let key = rawNonce.map(ChallengeService.appleNonceKey) ?? DigestAlgorithm.sha256.hash(Array("passkeyd bridge token:\(idToken)".utf8))
        if rawNonce != nil, try storage({ try store.takeChallenge(key, now: now) }) == .expired { throw ServerError(.invalidIdentityToken) }
        return AppleReplayGuard(
            nonceKey: key,
            tokenKey: DigestAlgorithm.sha256.hash(Array("passkeyd identity token:\(idToken)".utf8)),
            until: max(identity.expiresAt, now).addingTimeInterval(leeway)
        )
    }

    /// Runs the sign-in's writes in one transaction: the replay guard, the identity (updated, linked, or created with
    /// its account), an email the account lacked, the session and every event.
    func signIn(_ sign: SignIn, request: HTTPRequest) throws(ServerError) -> Outcome {
        try storage {
            try store.transaction { transaction throws(StorageError) in try self.apply(sign, in: transaction, request: request) }
        }
    }

    private func apply(_ sign: SignIn, in transaction: any StoreTransaction, request: HTTPRequest) throws(StorageError) -> Outcome {
        guard try sign.replay.remember(in: transaction, now: sign.now) else { return .replayed }
        let identity = sign.identity
        let provider = sign.provider
        // Only a provider authoritative for its users' addresses vouches for a verified email.
        let emailVerified = provider.settings.trustEmail && identity.emailVerified == true
        let email = OpenIDIdentityProvider.boundedEmail(identity.email)
        var events: [AccountEvent] = []
        var user: UserRecord
        var isNewAccount = false
        if let stored = try provider.linkedIdentity(for: identity, in: transaction) {
            let ownerID = provider.owner(of: stored)
            if let owner = sign.signedInOwner, owner.id != ownerID { return .taken(otherUserID: ownerID) }
            guard let owner = try transaction.user(id: ownerID) else { throw StorageError(.notFound, "the account is gone") }
            user = owner
            events += try provider.recordSignIn(identity, of: stored, in: transaction, now: sign.now)
        } else if let owner = sign.signedInOwner {
            user = owner
            events += try provider.link(identity, to: owner.id, in: transaction, now: sign.now)
        } else if provider.settings.bridge, let owner = try transaction.user(externalID: identity.subject) {
            // A bridge from the app's previous auth system: its `sub` is the app's own user id, the `externalId` of the
            // account made for that person (by the admin API or an import).
            user = owner
            events += try provider.link(identity, to: owner.id, in: transaction, now: sign.now)
        } else {
            user = UserRecord(
                id: random.bytes(count: 32),
                name: provider.name + "-" + Hex.encode(random.bytes(count: 8)),
                displayName: AppleAccountResolver.emailLocalPart(email) ?? "\(provider.name) user",
                displayNameIsDefault: true,
                appAccountToken: random.uuid(),
                email: email,
                emailVerified: email != nil && emailVerified,
                createdAt: sign.now,
                externalID: provider.settings.bridge ? identity.subject : nil
            )
            try transaction.insertUser(user)
            events.append(.userCreated(userID: user.id, method: .identityProvider, externalID: user.externalID))
            events += try provider.link(identity, to: user.id, in: transaction, now: sign.now)
            isNewAccount = true
        }
        // The notice of a link goes to the address the account had before it, never to one the identity brings.
        let beforeLink = user
        if !isNewAccount, let update = user.filledIn(displayName: nil, email: email, emailVerified: emailVerified) {
            _ = try transaction.updateUser(update.user)
            user = update.user
            events.append(.userUpdated(userID: user.id, changes: update.changes))
        }
        if !isNewAccount, events.contains(where: { if case .identityLinked = $0 { true } else { false } }) {
            try AccountService.queueNotice(.identityLinked, userID: user.id, account: beforeLink, mail: mail, in: transaction, now: sign.now)
        }
        let session = sessions.prepare(
            for: user.id,
            method: .identityProvider,
            federatedIdentity: (identity.issuer, identity.subject),
            userVerified: false,
            request: request
        )
        try transaction.insertSession(session.record)
        events.append(.sessionCreated(session.record))
        try transaction.appendEvents(events.map { $0.event(at: sign.now, random: random) })
        let suggestion = sign.signedInOwner == nil ? try hasLinkSuggestion(for: user, in: transaction) : false
        return .signedIn(user: user, isNewAccount: isNewAccount, linkSuggestion: suggestion, issued: session.issued)
    }

    /// Whether another account holds the user's verified email and the pair was not declined.
    private func hasLinkSuggestion(for user: UserRecord, in transaction: any StoreTransaction) throws(StorageError) -> Bool {
        guard user.emailVerified, let email = user.email else { return false }
        for other in try transaction.users(verifiedEmail: email) where other.id != user.id {
            if try !transaction.isLinkDeclined(LinkDecline(user.id, other.id)) { return true }
        }
        return false
    }
}
