import CryptoCore
import Foundation
import HTTPEdge
import Storage

extension ChallengeService {
    /// The longest code accepted; longer ones are unknown without being hashed.
    static let maximumCodeLength = 128

    /// A new single-use secret code of `kind` (32 random bytes, base64url) for `userID`, valid for `lifetime`: stored as
    /// a challenge under `codeKey`, never in the clear, so that taking it works once across nodes and it is deleted
    /// with the account. `context` is what the code stands for.
    func issueCode(
        _ kind: CeremonyKind,
        userID: [UInt8],
        context: [UInt8],
        lifetime: TimeInterval
    ) throws(ServerError) -> (code: String, expiresAt: Date) {
        try issueSecret(kind, userID: userID, context: context, lifetime: lifetime) { Self.codeKey($0, kind: kind) }
    }

    /// A new random secret (32 bytes, base64url) stored as a challenge of `kind` under `key(secret)` until `lifetime`
    /// has passed: the codes above and the Apple raw nonces.
    func issueSecret(
        _ kind: CeremonyKind,
        userID: [UInt8]?,
        context: [UInt8],
        lifetime: TimeInterval,
        key: (String) -> [UInt8]
    ) throws(ServerError) -> (code: String, expiresAt: Date) {
        let now = time.now
        purge.purgeIfDue(now: now)
        let code = Base64URL.encode(random.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(lifetime)
        do {
            try store.insertChallenge(
                ChallengeRecord(challenge: key(code), ceremony: kind, userID: userID, userVerification: "", context: context, expiresAt: expiresAt)
            )
        } catch {
            throw .storage(error)
        }
        return (code, expiresAt)
    }

    /// Takes the code of `kind`: its record once, nil when it is unknown, used, expired or of another kind.
    func redeemCode(_ code: String, kind: CeremonyKind) throws(ServerError) -> ChallengeRecord? {
        guard !code.isEmpty, code.utf8.count <= Self.maximumCodeLength else { return nil }
        let lookup: ChallengeLookup
        do {
            lookup = try store.takeChallenge(Self.codeKey(code, kind: kind), now: time.now)
        } catch {
            throw .storage(error)
        }
        guard case .valid(let record) = lookup, record.ceremony == kind else { return nil }
        return record
    }

    /// A code's key: SHA-256 of its kind and the code, so that no raw nonce or code of another kind hashes to it.
    static func codeKey(_ code: String, kind: CeremonyKind) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array("passkeyd \(kind.rawValue) code:\(code)".utf8))
    }
}
