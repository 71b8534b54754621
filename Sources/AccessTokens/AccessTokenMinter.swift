import CryptoCore
import Foundation
import JSON
import Synchronization

/// Mints access tokens: a JWT (RFC 9068) signed with the deployment's current key, header `typ: at+jwt` and `kid`.
/// Claims: `iss`, `sub` (the user handle, base64url, or the app's own id: `TokenSubject`), `aud` (a string for one audience, else a list), `iat`, `nbf`,
/// `exp` (one lifetime, never after the session), `jti` (unique, see `TokenIDs`), `client_id` (the relying party ID: the first-party app),
/// `sid` (the session's public ID), `auth_time`, `amr`, `username`, `external_id` (the app's own id) when the account has one, and `email` /
/// `email_verified` when known.
/// The claims are written directly as bytes (`JSONObjectWriter`), so that minting costs little more than signing.
package struct AccessTokenMinter: Sendable {
    package static let type = "at+jwt"

    let issuer: String
    let audiences: [String]
    let clientID: String
    let lifetime: TimeInterval
    let subjectRule: TokenSubject
    /// `tokens.metadataClaims`.
    let metadataClaims: [String]
    let tokenIDs: TokenIDs

    package init(
        issuer: String,
        audiences: [String],
        clientID: String,
        lifetime: TimeInterval,
        subjectRule: TokenSubject = .id,
        metadataClaims: [String] = [],
        random: any RandomSource
    ) {
        self.metadataClaims = metadataClaims
        self.issuer = issuer
        self.subjectRule = subjectRule
        self.audiences = audiences
        self.clientID = clientID
        self.lifetime = lifetime
        tokenIDs = TokenIDs(prefix: random.bytes(count: 8))
    }

    /// `jti` values (RFC 7519 §4.1.7: unique, with a negligible chance of collision across issuers' nodes): 8 random
    /// bytes drawn once per process, then a counter. A `jti` names a token and proves nothing, so it need not be
    /// unpredictable, and a fresh draw from the CSPRNG per token cost more than everything else of minting but the
    /// signature.
    final class TokenIDs: Sendable {
        private let prefix: [UInt8]
        private let counter = Atomic<UInt64>(0)

        init(prefix: [UInt8]) {
            self.prefix = prefix
        }

        /// The next `jti`'s 16 bytes (its text is their base64url): the prefix, then the counter, big-endian.
        func next() -> [UInt8] {
            let value = counter.add(1, ordering: .relaxed).newValue
            var bytes = prefix
            bytes.reserveCapacity(prefix.count + 8)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
            return bytes
        }
    }

    /// The signed token and its `exp`.
    package func mint(for subject: AccessTokenSubject, with key: JWSSigningKey, now: Date) throws(CryptoError) -> (token: String, expiresAt: Date) {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = min(issued + Int64(lifetime), Int64(subject.sessionExpiresAt.timeIntervalSince1970.rounded(.down)))
        var claims = JSONObjectWriter(capacity: 384)
        claims.add("iss", issuer)
        if subjectRule == .id || subject.externalID == nil {
            claims.add("sub", base64URL: subject.userID)
        } else {
            claims.add("sub", subjectRule.subject(userID: subject.userID, externalID: subject.externalID))
        }
        if audiences.count == 1 { claims.add("aud", audiences[0]) } else { claims.add("aud", audiences) }
        claims.add("iat", issued)
        claims.add("nbf", issued)
        claims.add("exp", expires)
        claims.add("jti", base64URL: tokenIDs.next())
        claims.add("client_id", clientID)
        claims.add("sid", base64URL: subject.sessionID)
        claims.add("auth_time", Int64(subject.authenticatedAt.timeIntervalSince1970.rounded(.down)))
        claims.add("amr", subject.authenticationMethods)
        claims.add("username", subject.username)
        if let externalID = subject.externalID { claims.add("external_id", externalID) }
        if let email = subject.email {
            claims.add("email", email)
            claims.add("email_verified", subject.emailVerified ?? false)
        }
        // The configured members of the account's metadata, each under its own name (none of passkeyd's: the
        // configuration refuses those).
        if !metadataClaims.isEmpty, let text = subject.metadata, let members = StrictJSONParser.strictValue(Array(text.utf8))?.objectValue {
            for name in metadataClaims {
                if let value = members[name] { claims.add(member: name, json: JSONEncoding.encode(value)) }
            }
        }
        let token = try CompactJWS.sign(payload: claims.finished(), type: Self.type, with: key)
        return (token, Date(timeIntervalSince1970: Double(expires)))
    }
}
