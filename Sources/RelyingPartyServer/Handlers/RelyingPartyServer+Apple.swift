import AppleSignIn
import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    /// The body of `POST /auth/apple`. An `email` member is ignored like any other unknown member: the email comes
    /// from the verified token only.
    struct AppleSignInRequest: Decodable {
        var identityToken: String
        var rawNonce: String
        var authorizationCode: String?
        /// As sent: an object of name components (`givenName`, `familyName`, …) or a formatted string. A name that is
        /// not usable is dropped (`appleDisplayName`), never refused.
        var fullName: JSONValue?
    }

    struct AppleNonceResponse: Encodable {
        let nonce: String
        let expiresAt: Date
    }

    static let maximumRawNonceLength = 512
    static let maximumAuthorizationCodeLength = 2048
    /// How long a merge token is valid.
    static let mergeTokenLifetime: TimeInterval = 300

    func configuredApple() throws(ServerError) -> AppleIntegration {
        guard let apple else { throw ServerError(.appleNotConfigured) }
        return apple
    }

    /// `POST /auth/apple/nonce`: a single-use raw nonce; the app passes its SHA-256 (hex) to Apple.
    func appleNonce(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        _ = try configuredApple()
        try limits.take(.challenges, key: clientAddress(request))
        let issued = try challenges.issueAppleNonce()
        return JSONBody.ok(AppleNonceResponse(nonce: issued.rawNonce, expiresAt: issued.expiresAt))
    }

    /// `POST /auth/apple`: verifies the identity token and signs in the identity's account (re-keying one found by its
    /// `transfer_sub`), links the identity to the signed-in account, or creates an account. An identity of another
    /// account is `409 apple_identity_taken` with a merge token.
    func appleSignIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let apple = try configuredApple()
        let body = try JSONBody.decode(AppleSignInRequest.self, from: request)
        guard !body.rawNonce.isEmpty, body.rawNonce.utf8.count <= Self.maximumRawNonceLength else {
            throw ServerError(.invalidRequest, member: "rawNonce")
        }
        if let code = body.authorizationCode, code.utf8.count > Self.maximumAuthorizationCodeLength {
            throw ServerError(.invalidRequest, member: "authorizationCode")
        }
        let displayName = appleDisplayName(body.fullName)
        let caller = context.session == nil ? nil : try signedInUser(request, context, writing: true)
        let token = try apple.verifyIdentityToken(body.identityToken, rawNonce: body.rawNonce)
        let replay = try appleReplayGuard(rawNonce: body.rawNonce, identityToken: body.identityToken, token: token, apple: apple)
        let now = time.now
        let sign = AppleSignIn(token: token, displayName: displayName, signedInOwner: caller?.user, replay: replay, now: now)
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) in try self.apply(sign, in: transaction, request: request) }
        }
        switch outcome {
        case .replayed:
            log("apple sign-in refused: the raw nonce or the identity token was already used", event: "apple")
            throw ServerError(.invalidIdentityToken)
        case .taken(let otherUserID):
            guard let caller else { throw ServerError(.appleIdentityTaken) }
            var error = ServerError(.appleIdentityTaken)
            error.members = try mergeTokenMembers(current: caller.user.id, other: otherUserID, session: caller.signedIn.session)
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
            return try signedIn(answer, user: user, issued: issued)
        }
    }

    /// `linkSuggestion` when another account holds the same verified email.
    static let matchingEmailSuggestion = "matching_email"

    /// What one Apple sign-in writes, decided before its transaction.
    struct AppleSignIn {
        let token: AppleIdentityToken
        /// The name sent with this authorization, when usable.
        let displayName: String?
        /// The account of the request's session, when it has one: a new identity links to it.
        let signedInOwner: UserRecord?
        let replay: AppleReplayGuard
        let now: Date
    }

    /// What the sign-in transaction found.
    enum AppleSignInOutcome: Sendable {
        /// The raw nonce or the token was already used: nothing was written.
        case replayed
        /// The identity belongs to another account than the signed-in one (only the replay guard was written).
        case taken(otherUserID: [UInt8])
        case signedIn(user: UserRecord, isNewAccount: Bool, linkSuggestion: Bool, issued: SessionService.Issued)
    }

    /// The sign-in's writes, in one transaction: the replay guard (nonce and token), the identity (updated, re-keyed,
    /// linked or created with its account), a name or email the account lacked, the session and every event. A sign-in
    /// that fails to be written leaves its nonce and token usable for the retry.
    func apply(_ sign: AppleSignIn, in transaction: any StoreTransaction, request: HTTPRequest) throws(StorageError) -> AppleSignInOutcome {
        guard try sign.replay.remember(in: transaction, now: sign.now) else { return .replayed }
        let token = sign.token
        var events: [AccountEvent] = []
        var user: UserRecord
        var isNewAccount = false
        // A name fills a default display name when the identity signs in again (after a revocation, Apple sends it
        // anew), never when it is linked to an account that named itself.
        var fillsDisplayName = false
        if let stored = try appleIdentity(for: token, in: transaction) {
            if let owner = sign.signedInOwner, owner.id != stored.userID { return .taken(otherUserID: stored.userID) }
            guard let owner = try transaction.user(id: stored.userID) else { throw StorageError(.notFound, "the account is gone") }
            user = owner
            fillsDisplayName = true
            var identity = stored
            identity.signedIn(with: token)
            if stored.subject != token.subject {
                // Found by its transfer_sub: the app moved to this team, and the identity takes the team's sub.
                identity.subject = token.subject
                identity.transferSubject = token.transferSubject
                identity.transferredAt = sign.now
            }
            if stored.subject != token.subject {
                _ = try transaction.reKeyAppleIdentity(identity, from: stored.subject)
                events.append(.appleTransferred(userID: owner.id, appleUserID: token.subject, previousAppleUserID: stored.subject))
            } else if identity != stored {
                _ = try transaction.updateAppleIdentity(identity, subject: stored.subject)
            }
        } else if let owner = sign.signedInOwner {
            user = owner
            try transaction.insertAppleIdentity(Self.appleIdentity(token, userID: owner.id, now: sign.now))
            events.append(.appleLinked(userID: owner.id, appleUserID: token.subject))
        } else {
            user = UserRecord(
                id: random.bytes(count: 32),
                name: "apple-" + Hex.encode(random.bytes(count: 8)),
                displayName: sign.displayName ?? Self.emailLocalPart(token.email) ?? "Apple user",
                displayNameIsDefault: sign.displayName == nil,
                appAccountToken: random.uuid(),
                email: token.email,
                emailVerified: token.email != nil && token.emailVerified == true,
                createdAt: sign.now
            )
            try transaction.insertUser(user)
            try transaction.insertAppleIdentity(Self.appleIdentity(token, userID: user.id, now: sign.now))
            events += [.userCreated(userID: user.id, method: .apple), .appleLinked(userID: user.id, appleUserID: token.subject)]
            isNewAccount = true
        }
        let name = fillsDisplayName ? sign.displayName : nil
        if !isNewAccount, let update = Self.filledIn(user, displayName: name, email: token.email, emailVerified: token.emailVerified) {
            _ = try transaction.updateUser(update.user)
            user = update.user
            events.append(.userUpdated(userID: user.id, changes: update.changes))
        }
        let session = sessions.prepare(for: user.id, method: .apple, appleSubject: token.subject, userVerified: false, request: request)
        try transaction.insertSession(session.record)
        events.append(.sessionCreated(session.record))
        try transaction.appendEvents(events.map { $0.event(at: sign.now) })
        let suggestion = sign.signedInOwner == nil ? try hasLinkSuggestion(for: user, in: transaction) : false
        return .signedIn(user: user, isNewAccount: isNewAccount, linkSuggestion: suggestion, issued: session.issued)
    }

    /// The identity a verified token signs in with: the one with its `sub`, or else the one whose transfer subject is
    /// the token's `transfer_sub` (an identity of the sending team, to be re-keyed).
    func appleIdentity(for token: AppleIdentityToken, in transaction: any StoreTransaction) throws(StorageError) -> AppleIdentityRecord? {
        if let identity = try transaction.appleIdentity(subject: token.subject) { return identity }
        guard let transfer = token.transferSubject else { return nil }
        return try transaction.appleIdentity(transferSubject: transfer)
    }

    /// The account with a display name or email it lacked: a name sent with Sign in with Apple replaces a default
    /// display name (Apple sends it once, and again after the person revoked and returned), an email fills an empty
    /// one. Nil when nothing changes.
    static func filledIn(_ user: UserRecord, displayName: String?, email: String?, emailVerified: Bool?) -> (user: UserRecord, changes: [String])? {
        var updated = user
        var changes: [String] = []
        if let displayName, user.displayNameIsDefault {
            updated.displayName = displayName
            updated.displayNameIsDefault = false
            changes.append("displayName")
        }
        if user.email == nil, let email {
            updated.email = email
            updated.emailVerified = emailVerified == true
            changes.append("email")
        }
        return changes.isEmpty ? nil : (updated, changes)
    }

    /// Whether another account holds the user's verified email and the pair was not declined.
    func hasLinkSuggestion(for user: UserRecord, in transaction: any StoreTransaction) throws(StorageError) -> Bool {
        guard user.emailVerified, let email = user.email else { return false }
        for other in try transaction.users(verifiedEmail: email) where other.id != user.id {
            if try !transaction.isLinkDeclined(LinkDecline(user.id, other.id)) { return true }
        }
        return false
    }

    /// The members a `409` adds for merging the signed-in account with `other`: a merge token bound to both accounts and
    /// the session, valid once for `mergeTokenLifetime`.
    func mergeTokenMembers(current: [UInt8], other: [UInt8], session: SessionRecord) throws(ServerError) -> [String: JSONValue] {
        let issued = try challenges.issueCode(
            .merge,
            userID: current,
            context: JSONBody.encode(MergeTokenContext(otherUserId: Base64URL.encode(other), sessionId: Base64URL.encode(session.id))),
            lifetime: Self.mergeTokenLifetime
        )
        return JSONBody.tree(MergeTokenJSON(mergeToken: issued.code, mergeTokenExpiresAt: issued.expiresAt)).objectValue ?? [:]
    }

    struct MergeTokenJSON: Encodable {
        let mergeToken: String
        let mergeTokenExpiresAt: Date
    }

    /// What a merge token stands for (its challenge's `userID` is the signed-in account).
    struct MergeTokenContext: Codable {
        var otherUserId: String
        var sessionId: String
    }

    /// The replay guard of one Apple identity token: the raw nonce's key and the token's own, each remembered until the
    /// token expires (plus the leeway), in the transaction that uses the token. A server-issued nonce is also taken
    /// from the challenge store here (an expired one is refused).
    struct AppleReplayGuard {
        let nonceKey: [UInt8]
        let tokenKey: [UInt8]
        let until: Date

        /// Remembers both; false when either was already remembered (the token is a replay, whatever its nonce).
        func remember(in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Bool {
            let freshNonce = try transaction.rememberNonce(nonceKey, until: until, now: now)
            let freshToken = try transaction.rememberNonce(tokenKey, until: until, now: now)
            return freshNonce && freshToken
        }
    }

    func appleReplayGuard(
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

    /// Starts the Apple background worker (key refreshes, code exchanges, revocations); its first round fetches
    /// Apple's keys.
    public func startAppleWorker() {
        apple?.worker.start()
    }

    /// Starts a fetch of Apple's keys when they are missing or due (tests; the worker does it in its rounds).
    package func refreshAppleKeys() {
        apple?.keyCache.refreshIfDue()
    }

    /// Whether Apple's keys are cached and unexpired, and how many key fetches have completed (tests wait on it).
    package var appleKeyStatus: (cached: Bool, completedFetches: Int) {
        apple?.keyCache.status(now: time.now) ?? (false, 0)
    }

    /// Stops the Apple background worker and waits for its current round.
    public func stopAppleWorker() {
        apple?.worker.stop()
    }

    /// Runs one round of Apple background work on the calling thread (tests drive the worker this way).
    package func processDueAppleWork() {
        apple?.processDueWork()
    }

    /// A new identity from a verified token; one that arrives with a `transfer_sub` is already the recipient team's.
    static func appleIdentity(_ token: AppleIdentityToken, userID: [UInt8], now: Date) -> AppleIdentityRecord {
        var identity = AppleIdentityRecord(
            subject: token.subject,
            userID: userID,
            email: token.email,
            emailVerified: token.emailVerified ?? false,
            isPrivateEmail: token.isPrivateEmail ?? false,
            realUserStatus: token.realUserStatus?.rawValue,
            transferSubject: token.transferSubject,
            transferredAt: token.transferSubject == nil ? nil : now,
            createdAt: now
        )
        identity.signedIn(with: token)
        return identity
    }

    /// The display name a `fullName` member gives, or nil: "Given Family" of an object's `givenName` and `familyName`
    /// (other components are accepted and not used), or a string as formatted by the app. One that is not usable
    /// (another type, over 64 characters, control characters) is dropped with a log line that carries no part of it.
    func appleDisplayName(_ fullName: JSONValue?) -> String? {
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
            return try Self.validName(trimmed, member: "fullName")
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

extension AppleIdentityRecord {
    /// What a sign-in with `token` records: the token's email facts when it carries an email, its `real_user_status`,
    /// the sign-in time (the token's `iat`, never earlier than one recorded), and the end of a consent-revoked mark.
    mutating func signedIn(with token: AppleIdentityToken) {
        if let email = token.email {
            self.email = email
            emailVerified = token.emailVerified ?? false
            isPrivateEmail = token.isPrivateEmail ?? false
        }
        realUserStatus = token.realUserStatus?.rawValue ?? realUserStatus
        lastSignInAt = max(lastSignInAt ?? token.issuedAt, token.issuedAt)
        consentRevoked = false
    }
}
