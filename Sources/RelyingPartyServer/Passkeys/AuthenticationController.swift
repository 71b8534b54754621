import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability
import RateLimiting
import Storage
import WebAuthnCore

/// Passkey sign-in: the request options (discoverable, or a username's passkeys with decoys for unknown names) and
/// the verification that starts a session.
struct AuthenticationController: Sendable {
    /// What the options route answers.
    let signInOptions: PasskeySignInOptions
    let store: any PasskeyStore
    let time: any TimeSource
    let sessions: SessionService
    let assertions: AssertionVerifier
    let answers: SignInAnswers
    let metrics: ServerMetrics?
    let log: Logger

    struct AuthenticationOptionsRequest: Decodable, DirectJSONDecodable {
        var username: String?
        var userVerification: String?

        /// What the synthesized `init(from:)` reads, without the `Decoder` protocol: every sign-in's options request is
        /// read twice (`isDiscoverableOptionsRequest`, then the route).
        init(tree: JSONValue) throws(DecodingError) {
            let object = try JSONTreeObject(tree)
            username = try object.optionalString("username")
            userVerification = try object.optionalString("userVerification")
        }
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
        return JSONBody.ok(
            try signInOptions.options(username: body.username, userVerification: userVerification, request: request, isOnLoop: context.isOnLoop)
        )
    }

    /// `POST /webauthn/authentication/verify`: verifies the assertion, updates the counter and flags, starts a session.
    /// A passkey this node verified a sign-in against before is not read again (`AssertionVerifier`). The final write
    /// stores the sign-in only while the stored passkey holds what the verification assumed, kept or read, and answers
    /// the owner as stored; when it does not (`storage.credentialChanged`), the assertion is verified again from a fresh
    /// read, once: a kept record gone stale, or a change in the moment between a read and its write (a merge, another
    /// node's sign-in that changed the backup eligibility, a passkey deleted or registered again), then ends as on a node
    /// that read after the change. When the write after that read is refused as changed too, the passkey is changing
    /// under the sign-in: `409 passkey_changed`, no further round (each costs a signature verification and a round trip
    /// to the database). The challenge stays spent, the passkey is not flagged, and no limit counts it.
    func verify(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let credential = try JSONBody.decode(AuthenticationResponseJSON.self, from: request)
        let assertion = try assertions.verify(credential, deferringSpend: true, keeping: true)
        if let answer = try complete(assertion, request) { return answer }
        guard let answer = try complete(try assertions.verifyAgain(assertion), request) else {
            log("authentication refused: the passkey changed twice while signing in", event: "ceremony")
            throw ServerError(.passkeyChanged)
        }
        return answer
    }

    /// The final write of a verified sign-in, and its answer; nil when the passkey changed since the record it was
    /// verified against (kept or read).
    private func complete(_ assertion: AssertionVerifier.VerifiedAssertion, _ request: HTTPRequest) throws(ServerError) -> HTTPResponse? {
        let (stored, result) = (assertion.stored, assertion.result)
        // The counter, flags, session and events in one transaction: one durable commit, which also spends a sealed
        // challenge, or makes the stored challenge taken above durable (see `CeremonyStore`).
        let now = time.now
        // The session's token and ID and its events' IDs (16 bytes each) in one random draw.
        let random = RandomReserve(
            drawing: SessionService.randomLength + 16 * (result.backupEligibilityChanged ? 2 : 1),
            from: sessions.random
        )
        let session = sessions.prepare(
            for: stored.userID,
            method: .passkey,
            credentialID: stored.id,
            userVerified: result.userVerified,
            request: request,
            reserve: random
        )
        var events = [AccountEvent.sessionCreated(session.record)]
        if result.backupEligibilityChanged {
            events.append(.passkeyBackupEligibilityChanged(userID: stored.userID, credentialID: stored.id, backupEligible: result.backupEligible))
        }
        let written = events.map { $0.event(at: now, random: random) }
        let user: UserRecord
        do {
            user = try store.completeAuthentication(
                assertion.update(at: now),
                session: session.record,
                events: written,
                spending: assertion.unspent,
                expecting: assertion.expecting
            )
        } catch  where error.code == .credentialChanged {
            return nil
        } catch  where error.code == .signCountNotIncreased {
            // §7.2 step 23 failed at the write: a concurrent sign-in with this passkey, here or on another node,
            // stored a counter at least as high after this one was read. The same verdict as at verification, the
            // passkey flagged as stored now (a kept record's flags and time may be older).
            log("authentication refused: \(error.code)", event: "ceremony")
            assertions.records.remove(stored.id)
            let current: CredentialRecord? = assertion.isKept ? try storage({ try store.credential(id: stored.id) }) : stored
            if let current { try assertions.markPossibleClone(current) }
            throw .possibleClone(step: error.code)
        } catch {
            if assertion.isKept { assertions.records.remove(stored.id) }
            throw .storage(error)
        }
        // The owner as the write locked it: on PostgreSQL the user's row lock may have waited for a transaction that
        // disabled the account after the write's own check of the flag. The session just stored is never usable then
        // (a session's look-up requires an enabled user); no answer, no access token either.
        guard !user.disabled else {
            log("authentication refused: the account was disabled during the sign-in", event: "ceremony")
            throw ServerError(.accountDisabled)
        }
        assertions.keep(assertion, at: now)
        if result.backupEligibilityChanged { metrics?.backupChanges.increment(["eligible"]) }
        // Against the record verified against: on a kept one, the state this node wrote last (another node's sign-ins
        // since are not seen), so with several nodes a change may be counted on two of them or on none
        // (docs/reference/metrics.md).
        if result.backupState != stored.backupState { metrics?.backupChanges.increment(["state"]) }
        return try answers.passkey(user: user, credentialID: stored.id, issued: session.issued)
    }
}
