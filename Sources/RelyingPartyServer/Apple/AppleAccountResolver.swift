import AccountEvents
import Accounts
import AppleSignIn
import CryptoCore
import Email
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability
import Storage
import WebAuthnCore

/// The account a verified Apple identity token signs in, shared by the native and the web flow (and by merge, which
/// takes an Apple identity token as proof of the other account): the replay guard of the token, the identity it is
/// found by, and the writes of one sign-in.
struct AppleAccountResolver: Sendable {
    /// Sign in with Apple; nil without an `apple` block.
    let apple: AppleIntegration?
    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let sessions: SessionService
    let log: Logger
    /// The notices (`email`); nil sends none.
    let mail: MailComposer?

    /// The integration, or `503 apple_not_configured` without an `apple` block.
    func configuredApple() throws(ServerError) -> AppleIntegration {
        try AppleIntegration.configured(apple)
    }

    /// Sign in with Apple as an identity provider, or `503 apple_not_configured` without an `apple` block.
    func configuredProvider() throws(ServerError) -> AppleIdentityProvider {
        AppleIdentityProvider(integration: try configuredApple())
    }

    /// What one Apple sign-in writes, decided before its transaction.
    struct SignIn {
        /// The provider that verified the identity, which finds, links and records it.
        let provider: AppleIdentityProvider
        let identity: VerifiedIdentity<AppleIdentityToken>
        /// The name sent with this authorization, when usable.
        let displayName: String?
        /// The account of the request's session, when it has one: a new identity links to it.
        let signedInOwner: UserRecord?
        let replay: AppleReplayGuard
        let now: Date
    }

    /// What the sign-in transaction found.
    enum Outcome: Sendable {
        /// The raw nonce or the token was already used: nothing was written.
        case replayed
        /// The identity belongs to another account than the signed-in one (only the replay guard was written).
        case taken(otherUserID: [UInt8])
        case signedIn(user: UserRecord, isNewAccount: Bool, linkSuggestion: Bool, issued: SessionService.Issued)
    }

    /// Runs the sign-in's writes (`apply`) in one transaction of the store.
    func signIn(_ sign: SignIn, request: HTTPRequest) throws(ServerError) -> Outcome {
        try storage {
            try store.transaction { transaction throws(StorageError) in try self.apply(sign, in: transaction, request: request) }
        }
    }

    /// The sign-in's writes, in one transaction: the replay guard (nonce and token), the identity (updated, re-keyed,
    /// linked or created with its account), a name or email the account lacked, the session and every event. A sign-in
    /// that fails to be written leaves its nonce and token usable for the retry.
    func apply(_ sign: SignIn, in transaction: any StoreTransaction, request: HTTPRequest) throws(StorageError) -> Outcome {
        guard try sign.replay.remember(in: transaction, now: sign.now) else { return .replayed }
        let identity = sign.identity
        var events: [AccountEvent] = []
        var user: UserRecord
        var isNewAccount = false
        // A name fills a default display name when the identity signs in again (after a revocation, Apple sends it
        // anew), never when it is linked to an account that named itself.
        var fillsDisplayName = false
        if let stored = try sign.provider.linkedIdentity(for: identity, in: transaction) {
            let ownerID = sign.provider.owner(of: stored)
            if let owner = sign.signedInOwner, owner.id != ownerID { return .taken(otherUserID: ownerID) }
            guard let owner = try transaction.user(id: ownerID) else { throw StorageError(.notFound, "the account is gone") }
            user = owner
            fillsDisplayName = true
            events += try sign.provider.recordSignIn(identity, of: stored, in: transaction, now: sign.now)
        } else if let owner = sign.signedInOwner {
            user = owner
            events += try sign.provider.link(identity, to: owner.id, in: transaction, now: sign.now)
        } else {
            user = UserRecord(
                id: random.bytes(count: 32),
                name: "apple-" + Hex.encode(random.bytes(count: 8)),
                displayName: sign.displayName ?? Self.emailLocalPart(identity.email) ?? "Apple user",
                displayNameIsDefault: sign.displayName == nil,
                appAccountToken: random.uuid(),
                email: identity.email,
                emailVerified: identity.email != nil && identity.emailVerified == true,
                createdAt: sign.now
            )
            try transaction.insertUser(user)
            events.append(.userCreated(userID: user.id, method: .apple))
            events += try sign.provider.link(identity, to: user.id, in: transaction, now: sign.now)
            isNewAccount = true
        }
        let name = fillsDisplayName ? sign.displayName : nil
        // The notice of a link goes to the address the account had before it, never to one the identity brings.
        let beforeLink = user
        if !isNewAccount, let update = user.filledIn(displayName: name, email: identity.email, emailVerified: identity.emailVerified) {
            _ = try transaction.updateUser(update.user)
            user = update.user
            events.append(.userUpdated(userID: user.id, changes: update.changes))
        }
        if !isNewAccount, events.contains(where: { if case .appleLinked = $0 { true } else { false } }) {
            try AccountService.queueNotice(.identityLinked, userID: user.id, account: beforeLink, mail: mail, in: transaction, now: sign.now)
        }
        let session = sessions.prepare(for: user.id, method: .apple, appleSubject: identity.subject, userVerified: false, request: request)
        try transaction.insertSession(session.record)
        events.append(.sessionCreated(session.record))
        try transaction.appendEvents(events.map { $0.event(at: sign.now, random: random) })
        let suggestion = sign.signedInOwner == nil ? try hasLinkSuggestion(for: user, in: transaction) : false
        return .signedIn(user: user, isNewAccount: isNewAccount, linkSuggestion: suggestion, issued: session.issued)
    }

    /// The identity a verified token signs in with (`AppleIdentityProvider.identity`; merge's Apple proof).
    func identity(for token: AppleIdentityToken, in transaction: any StoreTransaction) throws(StorageError) -> AppleIdentityRecord? {
        try AppleIdentityProvider.identity(for: token, in: transaction)
    }

    /// Whether another account holds the user's verified email and the pair was not declined.
    func hasLinkSuggestion(for user: UserRecord, in transaction: any StoreTransaction) throws(StorageError) -> Bool {
        guard user.emailVerified, let email = user.email else { return false }
        for other in try transaction.users(verifiedEmail: email) where other.id != user.id {
            if try !transaction.isLinkDeclined(LinkDecline(user.id, other.id)) { return true }
        }
        return false
    }

    /// The replay guard of a verified token: takes a server-issued nonce from the challenge store (an expired one is
    /// `401 invalid_identity_token`), and keys the nonce and the token until the token expires (plus the leeway).
    func replayGuard(
        rawNonce: String,
        identityToken: String,
        token: AppleIdentityToken,
        apple: AppleIntegration
    ) throws(ServerError)
        -> AppleReplayGuard
    {
        let key = ChallengeService.appleNonceKey(rawNonce)
        let now = time.now
        if try storage({ try store.takeChallenge(key, now: now) }) == .expired {
            log("apple sign-in refused: the server-issued nonce expired", event: "apple")
            throw ServerError(.invalidIdentityToken)
        }
        return AppleReplayGuard(
            nonceKey: key,
            tokenKey: DigestAlgorithm.sha256.hash(Array("passkeyd apple identity token:\(identityToken)".utf8)),
            until: max(token.expiresAt, now).addingTimeInterval(apple.verifier.leewaySeconds)
        )
    }

    /// The display name a `fullName` member gives, or nil: "Given Family" of an object's `givenName` and `familyName`
    /// (other components are accepted and not used), or a string as formatted by the app. One that is not usable
    /// (another type, over 64 characters, control characters) is dropped with a log line that carries no part of it.
    func displayName(_ fullName: JSONValue?) -> String? {
        let text: String?
        switch fullName {
        case nil, .null:
            return nil
        case .string(let formatted):
            text = formatted
        case .object(let components):
            let parts = [components["givenName"], components["familyName"]].map { part -> String?? in
                switch part {
                case nil, .null: .some(nil)
                case .string(let value): .some(value)
                default: nil
                }
            }
            text = parts.contains { $0 == nil } ? nil : parts.compactMap { $0! }.joined(separator: " ")
        default:
            text = nil
        }
        guard let text else {
            log("apple sign-in: fullName is neither name components nor a string; the name is not stored", event: "apple")
            return nil
        }
        let trimmed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !trimmed.isEmpty else { return nil }
        do {
            return try RelyingPartyServer.validName(trimmed, member: "fullName")
        } catch {
            log("apple sign-in: fullName is not a usable name (\(trimmed.count) characters); the name is not stored", event: "apple")
            return nil
        }
    }

    static func emailLocalPart(_ email: String?) -> String? {
        guard let local = email?.split(separator: "@").first, !local.isEmpty else { return nil }
        return String(local.prefix(64))
    }
}
