import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// How many codes a set has.
    static let recoveryCodeCount = 10
    /// The characters of a code: no 0/o, 1/l/i.
    static let recoveryCodeAlphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// `POST /me/recovery-codes`: a new set of ten single-use codes, shown once; only their SHA-256 is stored and the
    /// old set is gone. Not for a recovery session (a second factor is added by a full session only).
    func createRecoveryCodes(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let (user, _) = try signedInUser(request, context, writing: true)
        let codes = (0..<Self.recoveryCodeCount).map { _ in
            let characters = random.bytes(count: 10).map { Self.recoveryCodeAlphabet[Int($0) % Self.recoveryCodeAlphabet.count] }
            return String(characters[0..<5]) + "-" + String(characters[5...])
        }
        let now = time.now
        try storage {
            try store.transaction { transaction throws(StorageError) in
                try transaction.replaceRecoveryCodes(userID: user.id, hashes: codes.map(Self.recoveryCodeHash), createdAt: now)
                try transaction.appendEvent(AccountEvent.recoveryCodesCreated(userID: user.id).event(at: now))
            }
        }
        return JSONBody.ok(["codes": codes])
    }

    struct RecoveryRequest: Decodable {
        let username: String
        let code: String
    }

    /// `POST /auth/recovery` `{"username", "code"}`: uses one recovery code (atomically: of two requests with the same
    /// code, on any nodes, one wins) and starts a restricted session, which may only register a passkey, read `/me` and
    /// sign out, for `recovery.sessionLifetimeSeconds` (15 minutes by default), as a bearer token. Rate-limited per address and per account like sign-in.
    func recoverySignIn(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(RecoveryRequest.self, from: request)
        guard body.username.utf8.count <= 256, body.code.utf8.count <= 64 else { throw ServerError(.recoveryCodeInvalid) }
        // Every spelling of a name (`Frank`, `frank`) is one account, and so one bucket.
        let name = Self.normalizedName(body.username)
        try limits.take(.account, key: "name:" + UserRecord.nameKey(of: name))
        let hash = Self.recoveryCodeHash(body.code)
        guard let user = try storage({ try store.user(name: name) }) else { throw ServerError(.recoveryCodeInvalid) }
        var session = sessions.prepare(for: user.id, method: .recoveryCode, userVerified: false, request: request)
        let expiresAt = time.now.addingTimeInterval(TimeInterval(configuration.recoverySessionLifetimeSeconds))
        session.record.expiresAt = expiresAt
        let now = time.now
        let record = session.record
        let used = try storage {
            try store.transaction { transaction throws(StorageError) -> Bool in
                guard try transaction.deleteRecoveryCode(userID: user.id, hash: hash) else { return false }
                try transaction.insertSession(record)
                let remaining = try transaction.recoveryCodeCount(userID: user.id)
                try transaction.appendEvent(AccountEvent.recoveryCodeUsed(userID: user.id, remaining: remaining).event(at: now))
                try transaction.appendEvent(AccountEvent.sessionCreated(record).event(at: now))
                return true
            }
        }
        guard used else { throw ServerError(.recoveryCodeInvalid) }
        var answer = SignedInResponse(user: user, issued: SessionService.Issued(token: session.issued.token, expiresAt: expiresAt, session: record))
        answer.restricted = true
        // A bearer token only: no cookie outlives the restricted session's few minutes.
        return JSONBody.ok(answer)
    }

    /// The SHA-256 of a code as a person types it: lowercase, without dashes and spaces.
    static func recoveryCodeHash(_ code: String) -> [UInt8] {
        let normalized = code.lowercased().filter { $0 != "-" && !$0.isWhitespace }
        return DigestAlgorithm.sha256.hash(Array(normalized.utf8))
    }
}
