import AppleSignIn
import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// The body of `POST /auth/apple`. An `email` member is ignored like any other unknown member: the email comes
    /// from the verified token only.
    struct AppleSignInRequest: Decodable {
        struct FullName: Decodable {
            var givenName: String?
            var familyName: String?
        }

        var identityToken: String
        var rawNonce: String
        var authorizationCode: String?
        var fullName: FullName?
    }

    struct AppleNonceResponse: Encodable {
        let nonce: String
        let expiresAt: Date
    }

    struct AppleSignedInResponse: Encodable {
        struct User: Encodable {
            let id: String
            /// The person's name (the display name).
            let name: String
            let username: String
            let email: String?
        }

        let token: String
        let expiresAt: Date
        let user: User
        let isNewAccount: Bool
        let appleUserID: String
    }

    static let maximumRawNonceLength = 512
    static let maximumAuthorizationCodeLength = 2048

    func configuredApple() throws(ServerError) -> AppleIntegration {
        guard let apple else { throw ServerError(.appleNotConfigured) }
        return apple
    }

    /// `POST /auth/apple/nonce`: a single-use raw nonce; the app passes its SHA-256 (hex) to Apple.
    func appleNonce(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        _ = try configuredApple()
        try limit(challengeLimiter, key: clientAddress(request))
        let issued = try challenges.issueAppleNonce()
        return JSONBody.ok(AppleNonceResponse(nonce: issued.rawNonce, expiresAt: issued.expiresAt))
    }

    /// `POST /auth/apple`: verifies the identity token and signs in the identity's account, links the identity to the
    /// signed-in account, or creates an account.
    func appleSignIn(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let apple = try configuredApple()
        let body = try JSONBody.decode(AppleSignInRequest.self, from: request)
        guard !body.rawNonce.isEmpty, body.rawNonce.utf8.count <= Self.maximumRawNonceLength else {
            throw ServerError(.invalidRequest, member: "rawNonce")
        }
        if let code = body.authorizationCode, code.utf8.count > Self.maximumAuthorizationCodeLength {
            throw ServerError(.invalidRequest, member: "authorizationCode")
        }
        let displayName = try Self.appleDisplayName(body.fullName)
        let current = try sessions.current(request)
        if let current { try requireSameOrigin(request, credential: current.credential) }
        let token = try apple.verifyIdentityToken(body.identityToken, rawNonce: body.rawNonce)
        let nonce = try takeAppleNonce(body.rawNonce, token: token, apple: apple)

        let now = time.now
        var signedInOwner: UserRecord?
        if let current {
            guard let owner = try storage({ try store.user(id: current.session.userID) }) else { throw ServerError(.notSignedIn) }
            signedInOwner = owner
        }
        let created = UserRecord(
            id: random.bytes(count: 32),
            name: "apple-" + Hex.encode(random.bytes(count: 8)),
            displayName: displayName ?? Self.emailLocalPart(token.email) ?? "Apple user",
            createdAt: now
        )
        // The nonce, the account or link, the session and their events in one transaction: a sign-in that fails to be
        // written leaves its nonce usable for the retry.
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> AppleSignInOutcome in
                guard try transaction.rememberNonce(nonce.key, until: nonce.until, now: now) else { return .replayed }
                var events: [AccountEvent] = []
                let user: UserRecord
                let identity: AppleIdentityRecord
                if let existing = try transaction.appleIdentity(subject: token.subject) {
                    if let signedInOwner, signedInOwner.id != existing.userID {
                        throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
                    }
                    guard let owner = try transaction.user(id: existing.userID) else { throw StorageError(.notFound, "the account is gone") }
                    (user, identity) = (owner, existing)
                } else if let signedInOwner {
                    identity = Self.appleIdentity(token, userID: signedInOwner.id, now: now)
                    try transaction.insertAppleIdentity(identity)
                    events.append(.appleLinked(userID: signedInOwner.id, appleUserID: token.subject))
                    user = signedInOwner
                } else {
                    identity = Self.appleIdentity(token, userID: created.id, now: now)
                    try transaction.insertUser(created)
                    try transaction.insertAppleIdentity(identity)
                    events += [.userCreated(userID: created.id, method: .apple), .appleLinked(userID: created.id, appleUserID: token.subject)]
                    user = created
                }
                let session = sessions.prepare(for: user.id, method: .apple, appleSubject: token.subject, userVerified: false, request: request)
                try transaction.insertSession(session.record)
                events.append(.sessionCreated(session.record))
                try transaction.appendEvents(events.map { $0.event(at: now) })
                return .signedIn(user: user, isNewAccount: user.id == created.id, email: identity.email, issued: session.issued)
            }
        }
        guard case .signedIn(let user, let isNewAccount, let email, let issued) = outcome else {
            log("apple sign-in refused: the raw nonce was already used")
            throw ServerError(.invalidIdentityToken)
        }
        if let code = body.authorizationCode, !code.isEmpty, let clientID = token.audiences.first(where: apple.configuration.audiences.contains) {
            apple.enqueueCodeExchange(code: code, subject: token.subject, clientID: clientID)
        }
        var response = JSONBody.ok(
            AppleSignedInResponse(
                token: issued.token,
                expiresAt: issued.expiresAt,
                user: .init(id: Base64URL.encode(user.id), name: user.displayName, username: user.name, email: email),
                isNewAccount: isNewAccount,
                appleUserID: token.subject
            )
        )
        response.headers.add("Set-Cookie", sessions.cookie(for: issued))
        return response
    }

    /// What the sign-in transaction found.
    enum AppleSignInOutcome: Sendable {
        /// The raw nonce was already used: nothing was written.
        case replayed
        case signedIn(user: UserRecord, isNewAccount: Bool, email: String?, issued: SessionService.Issued)
    }

    /// A raw nonce is single-use: a server-issued one is taken from the challenge store (an expired one is refused),
    /// and every raw nonce, server-issued or client-generated, is remembered until the token expires, under the key
    /// returned here, in the transaction that signs the person in.
    func takeAppleNonce(_ rawNonce: String, token: AppleIdentityToken, apple: AppleIntegration) throws(ServerError) -> (key: [UInt8], until: Date) {
        let key = ChallengeService.appleNonceKey(rawNonce)
        let now = time.now
        if try storage({ try store.takeChallenge(key, now: now) }) == .expired {
            log("apple sign-in refused: the server-issued nonce expired")
            throw ServerError(.invalidIdentityToken)
        }
        return (key, max(token.expiresAt, now).addingTimeInterval(apple.verifier.leewaySeconds))
    }

    /// `POST /auth/apple/notifications`: Apple's server-to-server events. Idempotent; 200 for every verified event.
    func appleNotification(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let apple = try configuredApple()
        guard let event = try apple.verifyNotification(request.body) else { return JSONBody.ok(["received": true]) }
        let now = time.now
        let found: Bool
        switch event {
        case .consentRevoked(let subject, _):
            found = try storage {
                try store.transaction { transaction throws(StorageError) in
                    guard let identity = try transaction.appleIdentity(subject: subject) else { return false }
                    try transaction.appendEvent(AccountEvent.appleConsentRevoked(userID: identity.userID, appleUserID: subject).event(at: now))
                    for session in try transaction.deleteSessions(userID: identity.userID, except: nil) {
                        try transaction.appendEvent(AccountEvent.sessionRevoked(session, reason: .appleConsentRevoked).event(at: now))
                    }
                    if try transaction.deleteAppleIdentity(subject: subject) {
                        let unlinked = AccountEvent.appleUnlinked(userID: identity.userID, appleUserID: subject, reason: .consentRevoked)
                        try transaction.appendEvent(unlinked.event(at: now))
                    }
                    return true
                }
            }
            log("apple notification: consent-revoked\(found ? "" : " (unknown identity)")")
        case .accountDeleted(let subject, _):
            let owner = try storage {
                try store.transaction { transaction throws(StorageError) in try transaction.appleIdentity(subject: subject)?.userID }
            }
            if let owner { try deleteAccount(userID: owner, reason: .appleAccountDeleted) }
            log("apple notification: account-delete\(owner == nil ? " (unknown identity)" : "")")
        case .emailDisabled(let subject, _, _, _), .emailEnabled(let subject, _, _, _):
            let disabled = if case .emailDisabled = event { true } else { false }
            found = try storage {
                try store.transaction { transaction throws(StorageError) in
                    guard let identity = try transaction.appleIdentity(subject: subject) else { return false }
                    guard identity.emailDisabled != disabled else { return true }
                    _ = try transaction.updateAppleEmailState(subject: subject, emailDisabled: disabled)
                    let change: AccountEvent =
                        disabled
                        ? .appleEmailDisabled(userID: identity.userID, appleUserID: subject)
                        : .appleEmailEnabled(userID: identity.userID, appleUserID: subject)
                    try transaction.appendEvent(change.event(at: now))
                    return true
                }
            }
            log("apple notification: email-\(disabled ? "disabled" : "enabled")\(found ? "" : " (unknown identity)")")
        }
        return JSONBody.ok(["received": true])
    }

    /// Starts the Apple background worker (code exchanges, revocations) and prefetches Apple's keys.
    public func startAppleWorker() {
        guard let apple else { return }
        DispatchQueue.global().async { apple.prefetchKeys() }
        apple.worker.start()
    }

    /// Stops the Apple background worker and waits for its current round.
    public func stopAppleWorker() {
        apple?.worker.stop()
    }

    /// Runs one round of Apple background work on the calling thread (tests drive the worker this way).
    package func processDueAppleWork() {
        apple?.processDueWork()
    }

    static func appleIdentity(_ token: AppleIdentityToken, userID: [UInt8], now: Date) -> AppleIdentityRecord {
        AppleIdentityRecord(
            subject: token.subject,
            userID: userID,
            email: token.email,
            emailVerified: token.emailVerified ?? false,
            isPrivateEmail: token.isPrivateEmail ?? false,
            realUserStatus: token.realUserStatus?.rawValue,
            transferSubject: token.transferSubject,
            createdAt: now
        )
    }

    /// "Given Family" from the first authorization's name, or nil when it is absent or empty.
    static func appleDisplayName(_ fullName: AppleSignInRequest.FullName?) throws(ServerError) -> String? {
        let parts = [fullName?.givenName, fullName?.familyName].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.filter {
            !$0.isEmpty
        }
        guard !parts.isEmpty else { return nil }
        return try validName(parts.joined(separator: " "), member: "fullName")
    }

    static func emailLocalPart(_ email: String?) -> String? {
        guard let local = email?.split(separator: "@").first, !local.isEmpty else { return nil }
        return String(local.prefix(64))
    }
}
