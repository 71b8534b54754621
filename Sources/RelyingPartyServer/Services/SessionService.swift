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

    /// A new session for `userID` and its record, not yet stored: the ceremony or transaction that signs the person in
    /// stores it together with its own writes (`CeremonyStore`, `StoreTransaction.insertSession`).
    ///
    /// `method` and the passkey (`credentialID`) or Apple identity (`appleSubject`) say how the person signed in; the
    /// request's `User-Agent` is kept, cut to `SessionRecord.maximumUserAgentBytes`.
    func prepare(
        for userID: [UInt8],
        method: SessionMethod,
        credentialID: [UInt8]? = nil,
        appleSubject: String? = nil,
        userVerified: Bool,
        request: HTTPRequest
    ) -> (issued: Issued, record: SessionRecord) {
        let now = time.now
        let token = Base64URL.encode(random.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(lifetime)
        let record = SessionRecord(
            tokenHash: Self.hash(token),
            id: random.bytes(count: SessionRecord.idLength),
            userID: userID,
            method: method,
            credentialID: credentialID,
            appleSubject: appleSubject,
            userVerified: userVerified,
            createdAt: now,
            expiresAt: expiresAt,
            userAgent: SessionRecord.boundedUserAgent(request.headers["user-agent"])
        )
        return (Issued(token: token, expiresAt: expiresAt), record)
    }

    /// The session a request carries, if it is valid. Records its use (`lastUsedAt`) at most every
    /// `useRecordingInterval`, best effort: a failed write of the time fails no request.
    func current(_ request: HTTPRequest) throws(ServerError) -> (session: SessionRecord, token: String, credential: Credential)? {
        guard let (token, credential) = Self.token(in: request) else { return nil }
        let now = time.now
        do {
            guard let session = try store.session(tokenHash: Self.hash(token), now: now) else { return nil }
            if now.timeIntervalSince(session.lastUsedAt ?? session.createdAt) >= Self.useRecordingInterval {
                try? store.recordSessionUse(tokenHash: session.tokenHash, at: now)
            }
            return (session, token, credential)
        } catch {
            throw .storage(error)
        }
    }

    /// How often a session's `lastUsedAt` is written while it is in use.
    static let useRecordingInterval: TimeInterval = 300

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
