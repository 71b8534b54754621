import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Observability
import PasswordHashes
import RateLimiting
import Storage

/// `POST /auth/password`: a sign-in with a password whose hash was imported from the app's previous system, a bridge
/// to a passkey. Passwords only ever come from an import: no endpoint sets or changes one.
struct PasswordController: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let sessions: SessionService
    let answers: SignInAnswers
    let limits: RequestLimits
    let verifier: PasswordVerifier
    /// `passwords.session: upgradeOnly`.
    let restrictsSessions: Bool
    /// `passwords.retireAfterDays` in seconds: a hash whose account has had a passkey this long signs nobody in.
    let retirement: TimeInterval?
    /// Failed sign-ins watched for credential stuffing (which counts the signs it raises), reported as
    /// `password.stuffing_suspected`.
    let stuffing: CredentialStuffingSignals
    let log: Logger

    struct PasswordRequest: Decodable {
        let username: String?
        let email: String?
        let password: String
    }

    /// `{"username" | "email", "password"}` → the sign-in answer (`user`, `token`, `expiresAt`, the access token and the
    /// cookie), a session with `method: password` (`amr: ["pwd"]`) and `session.created`; under `passwords.session:
    /// upgradeOnly` a restricted session (`method: password_restricted`, `"restricted": true`, a bearer token only). Every failure is
    /// `401 password_invalid` after the same work: an unknown name or email, an account without a hash, a wrong
    /// password (an unknown account is verified against a timing twin). Limited per address (the route) and per
    /// account, before any work; at most `passwords.maximumConcurrentVerifications` at once (`503
    /// password_verification_busy` beyond, at once, and for a hash that waited 5 s for a core: `PasswordVerifier`).
    func signIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(PasswordRequest.self, from: request)
        guard (body.username == nil) != (body.email == nil) else { throw ServerError(.invalidRequest, member: "username") }
        guard body.password.utf8.count <= PasswordHashLimits.maximumPasswordBytes, (body.username ?? body.email ?? "").utf8.count <= 320 else {
            throw ServerError(.passwordInvalid)
        }
        // Every spelling of a name is one account and one bucket; an email is one bucket whatever its ASCII case.
        let key =
            body.username.map { "name:" + UserRecord.nameKey(of: RelyingPartyServer.normalizedName($0)) } ?? "email:"
            + (body.email ?? "").lowercased()
        try limits.take(.account, key: "password:" + key)
        let retiredBefore = retirement.map { time.now.addingTimeInterval(-$0) }
        let found = try storage { () throws(StorageError) -> (UserRecord, PasswordHashRecord?, isRetired: Bool)? in
            try store.transaction { transaction throws(StorageError) -> (UserRecord, PasswordHashRecord?, isRetired: Bool)? in
                let user: UserRecord?
                if let username = body.username {
                    user = try transaction.user(name: RelyingPartyServer.normalizedName(username))
                } else {
                    // An email names an account only when exactly one has it.
                    let matches = try transaction.users(email: body.email ?? "", limit: 2)
                    user = matches.count == 1 ? matches[0] : nil
                }
                guard let user else { return nil }
                guard let stored = try transaction.passwordHash(userID: user.id) else { return (user, nil, false) }
                // `retireAfterDays`: the hash of an account that has had a passkey that long is no longer a way in.
                if let retiredBefore, try transaction.credentials(userID: user.id).contains(where: { $0.createdAt <= retiredBefore }) {
                    return (user, nil, true)
                }
                return (user, stored, false)
            }
        }
        var hash: PasswordHash?
        if let stored = found?.1 {
            do {
                hash = try PasswordHash(stored.hash)
            } catch {
                // Checked at import: a stored hash that no longer reads is a fault of ours, never the person's.
                log.error("a stored password hash does not read: \(error.code)", event: "password")
            }
        }
        guard try verifier.verify(body.password, against: hash), let user = found?.0 else {
            noteFailure(account: key, userID: found?.0.id, request: request)
            if let user = found?.0, found?.isRetired == true { deleteRetiredHash(of: user.id) }
            throw ServerError(.passwordInvalid)
        }
        let session = sessions.prepare(
            for: user.id,
            method: restrictsSessions ? .passwordRestricted : .password,
            userVerified: false,
            request: request
        )
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.insertSession(session.record)
                try transaction.appendEvent(AccountEvent.sessionCreated(session.record).event(at: now, random: random))
            }
        }
        guard !restrictsSessions else {
            // Like a recovery code's: a bearer token that may only add a passkey; no access token, no cookie.
            var answer = SignedInResponse(user: user, issued: session.issued)
            answer.restricted = true
            return JSONBody.ok(answer)
        }
        return try answers.answer(SignedInResponse(user: user, issued: session.issued), user: user, issued: session.issued)
    }

    /// Deletes a hash `retireAfterDays` retired, found at a sign-in before the periodic purge reached it (the refusal
    /// stands whatever becomes of it).
    private func deleteRetiredHash(of userID: [UInt8]) {
        do {
            _ = try store.transaction { transaction throws(StorageError) in try transaction.deletePasswordHash(userID: userID) }
        } catch {
            log.warning("a retired password hash could not be deleted: \(error.code)", event: "password")
        }
    }

    /// A failed sign-in of `account` (the limiter's key of the name or email tried; `userID` when it is an account):
    /// each sign of credential stuffing it completes is counted and written as `password.stuffing_suspected`, in a
    /// transaction of its own (the refusal stands whatever becomes of it).
    private func noteFailure(account: String, userID: [UInt8]?, request: HTTPRequest) {
        let now = time.now
        let signals = stuffing.failed(account: account, address: limits.clientAddress(request), now: now)
        guard !signals.isEmpty else { return }
        let events = signals.map { signal -> AccountEvent in
            switch signal {
            case .accountsPerAddress(let address, let count):
                return .passwordStuffingSuspected(userID: nil, signal: signal.name, count: count, address: address)
            case .addressesPerAccount(_, let count):
                return .passwordStuffingSuspected(userID: userID, signal: signal.name, count: count, address: nil)
            }
        }
        log.warning("failed password sign-ins look like credential stuffing: " + signals.map(\.name).joined(separator: ", "), event: "password")
        do {
            try store.transaction { transaction throws(StorageError) in
                for event in events { try transaction.appendEvent(event.event(at: now, random: random)) }
            }
        } catch {
            log.warning("a password.stuffing_suspected event could not be written: \(error.code)", event: "password")
        }
    }
}
