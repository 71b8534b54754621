import CryptoCore
import Foundation
import HTTPServer
import Storage
import WebAuthnCore

extension RelyingPartyServer {
    struct RegistrationOptionsRequest: Decodable {
        var username: String?
        var displayName: String?
        var residentKey: String?
        var userVerification: String?
        var hints: [String]?
        /// The token of an enrollment link: registers a passkey on the link's account, no session needed.
        var enrollmentToken: String?
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
    }

    /// `POST /webauthn/registration/options`: a new account (username), with an enrollment link's `enrollmentToken` a
    /// passkey for the link's account, or, with a session, a passkey for the signed-in account.
    func registrationOptions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
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
        let registration: RegistrationContext
        let excluded: [CredentialRecord]
        if let token = body.enrollmentToken {
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
            let (user, _) = try signedInUser(request, context, writing: true)
            registration = RegistrationContext(
                userHandle: Base64URL.encode(user.id),
                username: user.name,
                displayName: user.displayName,
                newAccount: false
            )
            excluded = try storage { try store.credentials(userID: user.id) }
        } else {
            let username = try Self.validName(body.username, member: "username")
            let displayName = try Self.validName(body.displayName ?? username, member: "displayName")
            guard try storage({ try store.user(name: username) }) == nil else { throw ServerError(.usernameTaken) }
            registration = RegistrationContext(
                userHandle: Base64URL.encode(random.bytes(count: 32)),
                username: username,
                displayName: displayName,
                newAccount: true,
                displayNameIsDefault: body.displayName == nil
            )
            excluded = []
        }
        // An existing account's passkeys are its excluded credentials: one cap for the signed-in and the enrollment path.
        guard excluded.count < configuration.maximumPasskeysPerAccount else { throw ServerError(.passkeyLimitReached) }
        try limits.take(.challenges, key: clientAddress(request))
        let challenge = try challenges.issue(
            .registration,
            userID: registration.newAccount ? nil : Base64URL.decode(registration.userHandle),
            userVerification: userVerification.rawValue,
            context: JSONBody.encode(registration)
        )
        let options = relyingParty.creationOptions(
            challenge: challenge,
            user: .init(id: registration.userHandle, name: registration.username, displayName: registration.displayName),
            excludeCredentials: excluded.map { PublicKeyCredentialDescriptorJSON(id: $0.id, transports: Self.knownTransports($0.transports)) },
            residentKey: residentKey,
            userVerification: userVerification,
            attestation: settings.withLock { $0.attestation.policy.conveyancePreference },
            hints: hints,
            timeoutMilliseconds: configuration.challengeLifetimeSeconds * 1000
        )
        return JSONBody.ok(options)
    }

    /// The transports WebAuthn L3 defines (§5.8.4 AuthenticatorTransport), each once, in the order given, at most 8:
    /// what a client reports is stored and shown, so nothing else is kept (3,003 entries and HTML were accepted).
    static func knownTransports(_ transports: [String]) -> [String] {
        var kept: [String] = []
        for transport in transports where Self.transportValues.contains(transport) && !kept.contains(transport) && kept.count < 8 {
            kept.append(transport)
        }
        return kept
    }

    static let transportValues: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]

    /// `POST /webauthn/registration/verify`: verifies the new credential, stores it (and the account) and starts a session.
    func registrationVerify(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let credential = try JSONBody.decode(RegistrationResponseJSON.self, from: request)
        let record = try challenges.consume(try Self.challengeText(credential.response.clientDataJSON), for: .registration)
        guard let context = try? JSONDecoder().decode(RegistrationContext.self, from: Data(record.context)),
            let userHandle = Base64URL.decode(context.userHandle)
        else { throw ServerError(.internalError, detail: "the stored registration state is unreadable") }
        let current = settings.withLock { $0 }
        let attestation = current.attestation
        let expectations = RegistrationExpectations(
            challenge: record.challenge,
            userVerification: try UserVerificationRequirement(record.userVerification),
            allowedAlgorithms: configuration.algorithms,
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
            transports: Self.knownTransports(result.transports),
            aaguid: result.aaguid,
            backupEligible: result.backupEligible,
            backupState: result.backupState,
            attestationFormat: result.attestation.format.rawValue,
            attestationSummary: Self.summary(result),
            name: result.authenticatorName ?? "Passkey",
            createdAt: now
        )
        if let tokenHash = context.enrollmentTokenHash.flatMap(Base64URL.decode) {
            let session = sessions.prepare(
                for: userHandle,
                method: .passkey,
                credentialID: result.credentialID,
                userVerified: result.userVerified,
                request: request
            )
            let user = try completeEnrollment(tokenHash: tokenHash, credential: stored, session: session.record, now: now)
            metrics?.registered(format: result.attestation.format.rawValue, authenticator: result.authenticatorName)
            return try signedIn(user: user, credentialID: result.credentialID, issued: session.issued)
        }
        let user: UserRecord
        if context.newAccount {
            user = UserRecord(
                id: userHandle,
                name: context.username,
                displayName: context.displayName,
                displayNameIsDefault: context.displayNameIsDefault ?? false,
                appAccountToken: random.uuid(),
                createdAt: now
            )
        } else {
            guard let existing = try storage({ try store.user(id: userHandle) }) else { throw ServerError(.notSignedIn) }
            // Checked again here: passkeys may have been added since the options were issued.
            guard try storage({ try store.credentials(userID: existing.id) }).count < configuration.maximumPasskeysPerAccount else {
                throw ServerError(.passkeyLimitReached)
            }
            user = existing
        }
        let session = sessions.prepare(
            for: user.id,
            method: .passkey,
            credentialID: result.credentialID,
            userVerified: result.userVerified,
            request: request
        )
        let events =
            (context.newAccount ? [AccountEvent.userCreated(userID: user.id, method: .passkey)] : [])
            + [.passkeyRegistered(userID: user.id, credentialID: result.credentialID), .sessionCreated(session.record)]
        // The account or credential, the session and their events in one transaction: one durable commit (see
        // `CeremonyStore`).
        try storage {
            try store.completeRegistration(
                newUser: context.newAccount ? user : nil,
                credential: stored,
                session: session.record,
                events: events.map { $0.event(at: now) }
            )
        }
        metrics?.registered(format: result.attestation.format.rawValue, authenticator: result.authenticatorName)
        return try signedIn(user: user, credentialID: result.credentialID, issued: session.issued)
    }
}
