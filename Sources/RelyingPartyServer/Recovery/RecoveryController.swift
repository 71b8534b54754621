import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import RateLimiting
import Storage

/// Recovery codes: a new set for the signed-in account, and a sign-in with one that starts a restricted session.
struct RecoveryController: Sendable {
    /// How many codes a set has.
    static let codeCount = 10
    /// The characters of a code: no 0/o, 1/l/i.
    static let codeAlphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let sessions: SessionService
    let accounts: SignedInAccounts
    let service: AccountService
    let limits: RequestLimits
    /// `recovery.sessionLifetimeSeconds`: how long a recovery session lives.
    let sessionLifetime: TimeInterval

    /// `POST /me/recovery-codes`: a new set of ten single-use codes, shown once; only their SHA-256 is stored and the
    /// old set is gone. Not for a recovery session (a second factor is added by a full session only).
    func createCodes(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try accounts.user(request, context, writing: true)
        let codes = (0..<Self.codeCount).map { _ in
            let characters = random.bytes(count: 10).map { Self.codeAlphabet[Int($0) % Self.codeAlphabet.count] }
            return String(characters[0..<5]) + "-" + String(characters[5...])
        }
        try service.replaceRecoveryCodes(userID: user.id, hashes: codes.map(Self.codeHash))
        return JSONBody.ok(["codes": codes])
    }

    struct RecoveryRequest: Decodable {
        let username: String
        let code: String
    }

    /// `POST /auth/recovery` `{"username", "code"}`: uses one recovery code (atomically: of two requests with the same
    /// code, on any nodes, one wins) and starts a restricted session, which may only register a passkey, read `/me` and
    /// sign out, for `recovery.sessionLifetimeSeconds` (15 minutes by default), as a bearer token. Rate-limited per
    /// address and per account like sign-in.
    func signIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(RecoveryRequest.self, from: request)
        guard body.username.utf8.count <= 256, body.code.utf8.count <= 64 else { throw ServerError(.recoveryCodeInvalid) }
        // Every spelling of a name (`Frank`, `frank`) is one account, and so one bucket.
        let name = RelyingPartyServer.normalizedName(body.username)
        try limits.take(.account, key: "name:" + UserRecord.nameKey(of: name))
        let hash = Self.codeHash(body.code)
        guard let user = try storage({ try store.user(name: name) }) else { throw ServerError(.recoveryCodeInvalid) }
        var session = sessions.prepare(for: user.id, method: .recoveryCode, userVerified: false, request: request)
        let expiresAt = time.now.addingTimeInterval(sessionLifetime)
        session.record.expiresAt = expiresAt
        guard try service.recover(userID: user.id, codeHash: hash, session: session.record) else { throw ServerError(.recoveryCodeInvalid) }
        var answer = SignedInResponse(
            user: user,
            issued: SessionService.Issued(token: session.issued.token, expiresAt: expiresAt, session: session.record)
        )
        answer.restricted = true
        // A bearer token only: no cookie outlives the restricted session's few minutes.
        return JSONBody.ok(answer)
    }

    /// The SHA-256 of a code as a person types it: lowercase, without dashes and spaces.
    static func codeHash(_ code: String) -> [UInt8] {
        let normalized = code.lowercased().filter { $0 != "-" && !$0.isWhitespace }
        return DigestAlgorithm.sha256.hash(Array(normalized.utf8))
    }
}
