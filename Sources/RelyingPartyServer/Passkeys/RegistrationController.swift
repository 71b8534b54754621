import AccountEvents
import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import RateLimiting
import Storage
import WebAuthnCore

/// Passkey registration: the creation options (a new account, a passkey for the signed-in account, or one through an
/// enrollment link) and the verification that stores the passkey and starts a session.
struct RegistrationController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let challenges: ChallengeService
    let sessions: SessionService
    let settings: SettingsInForce
    let accounts: SignedInAccounts
    let service: AccountService
    let limits: RequestLimits
    let answers: SignInAnswers
    let metrics: ServerMetrics?
    let log: Logger
    /// The algorithms, the cap on passkeys, the options' timeout and the passkey upgrade.
    let policy: RegistrationPolicy

    struct RegistrationOptionsRequest: Decodable {
        var username: String?
        var displayName: String?
        var residentKey: String?
        var userVerification: String?
        var hints: [String]?
        /// The token of an enrollment link: registers a passkey on the link's account, no session needed.
        var enrollmentToken: String?
        /// `"conditional"`: an automatic passkey upgrade, right after a password sign-in (the platforms' conditional
        /// create: iOS 18 `requestStyle = .conditional`, `navigator.credentials.create({mediation: "conditional"})`).
        var mediation: String?
    }

    /// What the server keeps with a registration challenge, so that verify receives exactly what options decided.
    struct RegistrationContext: Codable {
        var userHandle: String
        var username: String
        var displayName: String
        var newAccount: Bool
        /// The display name is the username because none was given (absent in contexts stored before it existed).
        var displayNameIsDefault: Bool?
        /// The SHA-256 (base64url) of the enrollment link's token when the registration goes through one: verify takes
        /// the link in the transaction that adds the passkey.
        var enrollmentTokenHash: String?
        /// A conditional registration of a fresh password session: verify skips the user-presence test, as WebAuthn
        /// Level 3 §7.1 allows for it and for nothing else.
        var upgrade: Bool?
    }

    /// `POST /webauthn/registration/options`: a new account (username), with an enrollment link's `enrollmentToken` a
    /// passkey for the link's account, or, with a session, a passkey for the signed-in account.
    func options(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(RegistrationOptionsRequest.self, from: request)
        let residentKey = body.residentKey ?? "required"
        guard ["required", "preferred", "discouraged"].contains(residentKey) else {
            throw ServerError(.invalidRequest, member: "residentKey")
        }
        let userVerification = try UserVerificationRequirement(body.userVerification ?? "preferred")
        let hints = body.hints ?? []
        guard hints.allSatisfy({ ["security-key", "client-device", "hybrid"].contains($0) }) else {
            throw ServerError(.invalidRequest, member: "hints")
        }
        let upgrade = try isUpgrade(body.mediation, context)
        var registration: RegistrationContext
        let excluded: [CredentialRecord]
        if let token = body.enrollmentToken, !upgrade {
            let (user, tokenHash) = try enrollmentAccount(token: token)
            registration = RegistrationContext(
                userHandle: Base64URL.encode(user.id),
                username: user.name,
                displayName: user.displayName,
                newAccount: false,
                enrollmentTokenHash: Base64URL.encode(tokenHash)
            )
            excluded = try storage { try store.credentials(userID: user.id) }
        } else if context.session != nil {
            let (user, _) = try accounts.user(request, context, writing: true)
            registration = RegistrationContext(
                userHandle: Base64URL.encode(user.id),
                username: user.name,
                displayName: user.displayName,
                newAccount: false
            )
            excluded = try storage { try store.credentials(userID: user.id) }
        } else {
            let username = try RelyingPartyServer.validNewUsername(body.username, store: store)
            let displayName = try RelyingPartyServer.validName(body.displayName ?? username, member: "displayName")
            guard try storage({ try store.user(name: username) }) == nil else { throw ServerError(.usernameTaken) }
            registration = RegistrationContext(
                userHandle: Base64URL.encode(service.newUserHandle()),
                username: username,
                displayName: displayName,
                newAccount: true,
                displayNameIsDefault: body.displayName == nil
            )
            excluded = []
        }
        if upgrade { registration.upgrade = true }
        // An existing account's passkeys are its excluded credentials: one cap for the signed-in and the enrollment path.
        guard excluded.count < policy.maximumPasskeysPerAccount else { throw ServerError(.passkeyLimitReached) }
        try limits.take(.challenges, key: limits.clientAddress(request))
        let challenge = try challenges.issue(
            .registration,
            userID: registration.newAccount ? nil : Base64URL.decode(registration.userHandle),
            userVerification: userVerification.rawValue,
            context: JSONBody.encode(registration)
        )
        let options = settings.relyingParty.creationOptions(
            challenge: challenge,
            user: .init(id: registration.userHandle, name: registration.username, displayName: registration.displayName),
            excludeCredentials: excluded.map {
                PublicKeyCredentialDescriptorJSON(id: $0.id, transports: RelyingPartyServer.knownTransports($0.transports))
            },
            residentKey: residentKey,
            userVerification: userVerification,
            attestation: settings.withLock { $0.attestation.policy.conveyancePreference },
            hints: hints,
            timeoutMilliseconds: policy.challengeTimeoutMilliseconds
        )
        return JSONBody.ok(options)
    }

    /// `POST /webauthn/registration/verify`: verifies the new credential, stores it (and the account) and starts a session.
    func verify(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let credential = try JSONBody.decode(RegistrationResponseJSON.self, from: request)
        let record = try challenges.consume(try RelyingPartyServer.challengeText(credential.response.clientDataJSON), for: .registration)
        guard let registration = try? JSONDecoder().decode(RegistrationContext.self, from: Data(record.context)),
            let userHandle = Base64URL.decode(registration.userHandle)
        else { throw ServerError(.internalError, detail: "the stored registration state is unreadable") }
        let current = settings.withLock { $0 }
        let attestation = current.attestation
        let upgrade = registration.upgrade == true
        let expectations = RegistrationExpectations(
            challenge: record.challenge,
            userVerification: try UserVerificationRequirement(record.userVerification),
            // §7.1 step 15: "If options.mediation is not set to conditional, verify that the UP bit of the flags in
            // authData is set." Only the options of an automatic upgrade were conditional.
            requiresUserPresence: !upgrade,
            allowedAlgorithms: policy.algorithms,
            trustAnchors: attestation.trustAnchors,
            attestationPolicy: attestation.policy,
            metadata: current.metadata,
            authenticatorNames: attestation.authenticatorNames
        )
        let result: RegistrationResult
        do {
            result = try RegistrationCeremony(relyingParty: current.relyingParty).verify(credential, expecting: expectations)
        } catch {
            log("registration refused: \(error)", event: "ceremony")
            throw .verification(error)
        }
        let now = time.now
        let stored = CredentialRecord(
            id: result.credentialID,
            userID: userHandle,
            publicKey: result.publicKey.encoded,
            algorithm: result.publicKey.algorithm.rawValue,
            signCount: result.signCount,
            transports: RelyingPartyServer.knownTransports(result.transports),
            aaguid: result.aaguid,
            backupEligible: result.backupEligible,
            backupState: result.backupState,
            attestationFormat: result.attestation.format.rawValue,
            attestationSummary: RelyingPartyServer.summary(result),
            name: result.authenticatorName ?? "Passkey",
            createdAt: now
        )
        if let tokenHash = registration.enrollmentTokenHash.flatMap(Base64URL.decode) {
            let session = sessions.prepare(
                for: userHandle,
                method: .passkey,
                credentialID: result.credentialID,
                userVerified: result.userVerified,
                request: request
            )
            let user = try service.completeEnrollment(
                tokenHash: tokenHash,
                credential: stored,
                session: session.record,
                maximumPasskeys: policy.maximumPasskeysPerAccount,
                retiringPassword: policy.retiresPasswords
            )
            metrics?.registered(format: result.attestation.format.rawValue, authenticator: result.authenticatorName)
            return try answers.passkey(user: user, credentialID: result.credentialID, issued: session.issued)
        }
        let session = sessions.prepare(
            for: userHandle,
            method: .passkey,
            credentialID: result.credentialID,
            userVerified: result.userVerified,
            request: request
        )
        let events =
            (registration.newAccount ? [AccountEvent.userCreated(userID: userHandle, method: .passkey)] : [])
            + [.passkeyRegistered(userID: userHandle, credentialID: result.credentialID, upgrade: upgrade), .sessionCreated(session.record)]
        let user = try service.addPasskey(
            stored,
            session: session.record,
            newAccount: registration.newAccount
                ? AccountService.NewPasskeyAccount(
                    name: registration.username,
                    displayName: registration.displayName,
                    displayNameIsDefault: registration.displayNameIsDefault ?? false
                ) : nil,
            events: events,
            maximumPasskeys: policy.maximumPasskeysPerAccount,
            retiringPassword: policy.retiresPasswords
        )
        metrics?.registered(format: result.attestation.format.rawValue, authenticator: result.authenticatorName)
        return try answers.passkey(user: user, credentialID: result.credentialID, issued: session.issued, upgrade: upgrade)
    }

    /// Whether the options are for an automatic passkey upgrade: `mediation` is absent or `"conditional"`, and a
    /// conditional one needs a session made by a password sign-in within `upgradeWindow` (`403
    /// passkey_upgrade_not_allowed` otherwise; `401 not_signed_in` without a session).
    func isUpgrade(_ mediation: String?, _ context: RouteContext) throws(ServerError) -> Bool {
        guard let mediation else { return false }
        guard mediation == "conditional" else { throw ServerError(.invalidRequest, member: "mediation") }
        guard let session = context.session?.session else { throw ServerError(.notSignedIn) }
        guard session.method.isPassword, time.now.timeIntervalSince(session.authenticatedAt) <= policy.upgradeWindow else {
            throw ServerError(.passkeyUpgradeNotAllowed)
        }
        return true
    }

    /// The longest enrollment token looked up (the server makes 43 characters).
    static let maximumEnrollmentTokenBytes = 128

    /// The account an enrollment link (`POST /webauthn/registration/options {"enrollmentToken"}`) registers a passkey
    /// on, and the link's token hash, which the registration context carries to verify. The link is only read here; verify
    /// takes it. Rate-limited per account like sign-in (and per address by the route).
    /// - Throws: `400 enrollment_link_invalid` for a token that is unknown, used, or whose account was deleted (its
    ///   links went with it); `400 enrollment_link_expired`; `429 rate_limited`.
    func enrollmentAccount(token: String) throws(ServerError) -> (user: UserRecord, tokenHash: [UInt8]) {
        guard !token.isEmpty, token.utf8.count <= Self.maximumEnrollmentTokenBytes else { throw ServerError(.enrollmentLinkInvalid) }
        let hash = AccountService.enrollmentTokenHash(token)
        let now = time.now
        guard let (link, user) = try service.enrollmentLink(hash: hash), let user else { throw ServerError(.enrollmentLinkInvalid) }
        guard now < link.expiresAt else { throw ServerError(.enrollmentLinkExpired) }
        try limits.take(.account, key: "user:" + Base64URL.encode(user.id))
        return (user, hash)
    }
}
