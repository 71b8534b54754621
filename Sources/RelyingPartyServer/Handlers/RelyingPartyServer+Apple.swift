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
        guard let apple else { throw .appleNotConfigured }
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
            throw .badRequest("invalid_request", "rawNonce must be 1 to \(Self.maximumRawNonceLength) bytes.")
        }
        if let code = body.authorizationCode, code.utf8.count > Self.maximumAuthorizationCodeLength {
            throw .badRequest("invalid_request", "authorizationCode is too long.")
        }
        let displayName = try Self.appleDisplayName(body.fullName)
        let current = try sessions.current(request)
        if let current { try requireSameOrigin(request, credential: current.credential) }
        let token = try apple.verifyIdentityToken(body.identityToken, rawNonce: body.rawNonce)
        try consumeAppleNonce(body.rawNonce, token: token, apple: apple)

        let now = time.now
        let user: UserRecord
        var isNewAccount = false
        if let existing = try storage({ try store.appleIdentity(subject: token.subject) }) {
            if let current, current.session.userID != existing.userID { throw .storage(.appleIdentityTaken()) }
            guard let owner = try storage({ try store.user(id: existing.userID) }) else { throw .storage(.notFound("the account is gone")) }
            user = owner
        } else if let current {
            guard let owner = try storage({ try store.user(id: current.session.userID) }) else { throw ServerError.notSignedIn }
            try storage { try store.linkAppleIdentity(Self.appleIdentity(token, userID: owner.id, now: now)) }
            user = owner
        } else {
            let created = UserRecord(
                id: random.bytes(count: 32),
                name: "apple-" + Hex.encode(random.bytes(count: 8)),
                displayName: displayName ?? Self.emailLocalPart(token.email) ?? "Apple user",
                createdAt: now
            )
            try storage { try store.createUser(created, appleIdentity: Self.appleIdentity(token, userID: created.id, now: now)) }
            user = created
            isNewAccount = true
        }
        if let code = body.authorizationCode, !code.isEmpty, let clientID = token.audiences.first(where: apple.configuration.audiences.contains) {
            apple.enqueueCodeExchange(code: code, subject: token.subject, clientID: clientID)
        }
        let email = try storage { try store.appleIdentity(subject: token.subject) }?.email
        let issued = try sessions.create(for: user.id)
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

    /// A raw nonce is single-use: a server-issued one is taken from the challenge store (an expired one is refused),
    /// and every raw nonce, server-issued or client-generated, is remembered until the token expires.
    func consumeAppleNonce(_ rawNonce: String, token: AppleIdentityToken, apple: AppleIntegration) throws(ServerError) {
        let key = ChallengeService.appleNonceKey(rawNonce)
        let now = time.now
        if try storage({ try store.takeChallenge(key, now: now) }) == .expired {
            log("apple sign-in refused: the server-issued nonce expired")
            throw .invalidIdentityToken
        }
        let until = max(token.expiresAt, now).addingTimeInterval(apple.verifier.leewaySeconds)
        guard try storage({ try store.rememberNonce(key, until: until, now: now) }) else {
            log("apple sign-in refused: the raw nonce was already used")
            throw .invalidIdentityToken
        }
    }

    /// `POST /auth/apple/notifications`: Apple's server-to-server events. Idempotent; 200 for every verified event.
    func appleNotification(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let apple = try configuredApple()
        guard let event = try apple.verifyNotification(request.body) else { return JSONBody.ok(["received": true]) }
        let identity = try storage { try store.appleIdentity(subject: event.subject) }
        switch event {
        case .consentRevoked:
            if let identity {
                try storage { try store.deleteSessions(userID: identity.userID) }
                _ = try storage { try store.unlinkAppleIdentity(subject: identity.subject) }
            }
            log("apple notification: consent-revoked\(identity == nil ? " (unknown identity)" : "")")
        case .accountDeleted:
            if let identity {
                let credentials = try storage { try store.credentials(userID: identity.userID) }
                try storage { try store.deleteUser(id: identity.userID) }
                credentials.forEach { keys.remove($0.id) }
            }
            log("apple notification: account-delete\(identity == nil ? " (unknown identity)" : "")")
        case .emailDisabled(let subject, _, _, _), .emailEnabled(let subject, _, _, _):
            let disabled = if case .emailDisabled = event { true } else { false }
            _ = try storage { try store.updateAppleEmailState(subject: subject, emailDisabled: disabled) }
            log("apple notification: email-\(disabled ? "disabled" : "enabled")\(identity == nil ? " (unknown identity)" : "")")
        }
        return JSONBody.ok(["received": true])
    }

    /// Queues the revocation of every Apple refresh token of the account (before it is deleted).
    func enqueueAppleRevocations(userID: [UInt8]) throws(ServerError) {
        let identities = try storage { try store.appleIdentities(userID: userID) }
        let now = time.now
        for identity in identities {
            guard let token = identity.encryptedRefreshToken, let clientID = identity.refreshTokenClientID else { continue }
            _ = try storage { try store.enqueueRevocation(token: token, clientID: clientID, notBefore: now) }
        }
        if identities.contains(where: { $0.encryptedRefreshToken != nil }) { apple?.worker.wake() }
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
