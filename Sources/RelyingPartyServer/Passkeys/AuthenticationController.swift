import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import RateLimiting
import Storage
import WebAuthnCore

/// Passkey sign-in: the request options (discoverable, or a username's passkeys with decoys for unknown names) and
/// the verification that starts a session.
struct AuthenticationController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let challenges: ChallengeService
    let sessions: SessionService
    let decoys: DecoyCredentials
    let settings: SettingsInForce
    let limits: RequestLimits
    let assertions: AssertionVerifier
    let answers: SignInAnswers
    let metrics: ServerMetrics?
    let log: Logger
    /// The options' `timeout`: the challenge's lifetime.
    let challengeTimeoutMilliseconds: Int

    struct AuthenticationOptionsRequest: Decodable {
        var username: String?
        var userVerification: String?
    }

    /// Whether `request` asks for a discoverable sign-in's options without any session credentials: its answer is a
    /// sealed challenge, made from memory, so it is answered on the event-loop thread. Anything else (a username, a
    /// cookie or bearer to resolve, a body that is not JSON) goes to the worker pool as every store route does.
    @Sendable static func isDiscoverableOptionsRequest(_ request: HTTPRequest) -> Bool {
        guard !SessionService.carriesCredentials(request) else { return false }
        guard let body = try? JSONBody.decode(AuthenticationOptionsRequest.self, from: request) else { return false }
        return body.username == nil
    }

    /// `POST /webauthn/authentication/options`: discoverable (autofill) sign-in without a username; with one, the
    /// user's credentials. An unknown username gets the same shape with stable decoy credentials (no enumeration).
    /// Limited per client address only (the route's flag, and the challenges an address holds): a limit per
    /// username would let anyone lock its owner out.
    func options(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(AuthenticationOptionsRequest.self, from: request)
        let userVerification = try UserVerificationRequirement(body.userVerification ?? "preferred")
        var allowCredentials: [PublicKeyCredentialDescriptorJSON] = []
        var userID: [UInt8]?
        var stored: [UInt8] = []
        // No account has a longer name: refused before it is normalised or reaches the store or any table.
        if let given = body.username, given.utf8.count > RelyingPartyServer.maximumLookupNameBytes {
            throw ServerError(.invalidUsername, member: "username")
        }
        if let given = body.username, case let name = RelyingPartyServer.normalizedName(given), !name.isEmpty {
            // Found by its key (`UserRecord.nameKey`): any case of the name, and one registered before names were NFKC.
            if let user = try storage({ try store.user(name: name) }) {
                userID = user.id
                allowCredentials = try storage { try store.credentials(userID: user.id) }
                    .map { PublicKeyCredentialDescriptorJSON(id: $0.id, transports: RelyingPartyServer.knownTransports($0.transports)) }
            } else {
                allowCredentials = decoys.descriptors(for: UserRecord.nameKey(of: name))
                // Bound to nobody, so that signing in with one's own passkey does not reveal that the name is free.
                stored = JSONBody.encode(AssertionVerifier.AuthenticationContext(unknownUser: true, decoys: allowCredentials.map(\.id)))
            }
        }
        // On the event loop (a discoverable sign-in's options), by the node's own bucket: a draw may wait on the database.
        try limits.take(.challenges, key: limits.clientAddress(request), locally: context.isOnLoop)
        // A discoverable sign-in's challenge is sealed: nothing to store until it is used (`ChallengeSeal`).
        let challenge =
            userID == nil && stored.isEmpty
            ? challenges.issueSealed(userVerification: userVerification.rawValue)
            : try challenges.issue(.authentication, userID: userID, userVerification: userVerification.rawValue, context: stored)
        return JSONBody.ok(
            settings.relyingParty.requestOptions(
                challenge: challenge,
                allowCredentials: allowCredentials,
                userVerification: userVerification,
                timeoutMilliseconds: challengeTimeoutMilliseconds
            )
        )
    }

    /// `POST /webauthn/authentication/verify`: verifies the assertion, updates the counter and flags, starts a session.
    func verify(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let credential = try JSONBody.decode(AuthenticationResponseJSON.self, from: request)
        let assertion = try assertions.verify(credential, deferringSpend: true)
        let (stored, result, user) = (assertion.stored, assertion.result, assertion.user)
        // The counter, flags, session and events in one transaction: one durable commit, which also spends a sealed
        // challenge, or makes the stored challenge taken above durable (see `CeremonyStore`).
        let now = time.now
        // The session's token and ID and its events' IDs (16 bytes each) in one random draw.
        let random = RandomReserve(
            drawing: SessionService.randomLength + 16 * (result.backupEligibilityChanged ? 2 : 1),
            from: sessions.random
        )
        let session = sessions.prepare(
            for: user.id,
            method: .passkey,
            credentialID: stored.id,
            userVerified: result.userVerified,
            request: request,
            reserve: random
        )
        var events = [AccountEvent.sessionCreated(session.record)]
        if result.backupEligibilityChanged {
            events.append(.passkeyBackupEligibilityChanged(userID: user.id, credentialID: stored.id, backupEligible: result.backupEligible))
        }
        do {
            try store.completeAuthentication(
                assertion.update(at: now),
                session: session.record,
                events: events.map { $0.event(at: now, random: random) },
                spending: assertion.unspent
            )
        } catch  where error.code == .signCountNotIncreased {
            // §7.2 step 23 failed at the write: a concurrent sign-in with this passkey, here or on another node,
            // stored a counter at least as high after this one was read. The same verdict as at verification.
            log("authentication refused: \(error.code)", event: "ceremony")
            try assertions.markPossibleClone(stored)
            throw .possibleClone(step: error.code)
        } catch {
            throw .storage(error)
        }
        if result.backupEligibilityChanged { metrics?.backupChanges.increment(["eligible"]) }
        if result.backupState != stored.backupState { metrics?.backupChanges.increment(["state"]) }
        return try answers.passkey(user: user, credentialID: stored.id, issued: session.issued)
    }
}
