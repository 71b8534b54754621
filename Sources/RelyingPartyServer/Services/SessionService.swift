import CryptoCore
import Foundation
import HTTPServer
import Storage

/// Opaque random session tokens; only their SHA-256 is stored. Accepted as `Authorization: Bearer` or the
/// `passkeyd_session` cookie.
struct SessionService: Sendable {
    static let cookieName = "passkeyd_session"

    let store: any SessionStore
    let random: any RandomSource
    let time: any TimeSource
    let lifetime: TimeInterval

    struct Issued {
        let token: String
        let expiresAt: Date
    }

    /// How the request proved its session; cookie-authenticated writes must also pass the Origin check.
    enum Credential {
        case bearer, cookie
    }

    func create(for userID: [UInt8]) throws(ServerError) -> Issued {
        let (issued, record) = prepare(for: userID)
        do {
            try store.createSession(record)
        } catch {
            throw .storage(error)
        }
        return issued
    }

    /// A new session for `userID` and its record, not yet stored: a ceremony stores it together with its own
    /// writes, in one transaction (`CeremonyStore`).
    func prepare(for userID: [UInt8]) -> (issued: Issued, record: SessionRecord) {
        let now = time.now
        let token = Base64URL.encode(random.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(lifetime)
        let record = SessionRecord(tokenHash: Self.hash(token), userID: userID, createdAt: now, expiresAt: expiresAt)
        return (Issued(token: token, expiresAt: expiresAt), record)
    }

    /// The session a request carries, if it is valid.
    func current(_ request: HTTPRequest) throws(ServerError) -> (session: SessionRecord, token: String, credential: Credential)? {
        guard let (token, credential) = Self.token(in: request) else { return nil }
        do {
            guard let session = try store.session(tokenHash: Self.hash(token), now: time.now) else { return nil }
            return (session, token, credential)
        } catch {
            throw .storage(error)
        }
    }

    func end(token: String) throws(ServerError) {
        do {
            try store.deleteSession(tokenHash: Self.hash(token))
        } catch {
            throw .storage(error)
        }
    }

    func cookie(for issued: Issued) -> String {
        "\(Self.cookieName)=\(issued.token); Path=/; Max-Age=\(Int(lifetime)); HttpOnly; Secure; SameSite=Strict"
    }

    static let clearingCookie = "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"

    static func hash(_ token: String) -> [UInt8] { DigestAlgorithm.sha256.hash(Array(token.utf8)) }

    private static func token(in request: HTTPRequest) -> (String, Credential)? {
        if let authorization = request.headers["authorization"], authorization.lowercased().hasPrefix("bearer ") {
            let token = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : (token, .bearer)
        }
        for header in request.headers.values("cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    let token = parts[1].trimmingCharacters(in: .whitespaces)
                    if !token.isEmpty { return (token, .cookie) }
                }
            }
        }
        return nil
    }
}
