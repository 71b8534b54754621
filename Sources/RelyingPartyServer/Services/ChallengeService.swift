import CryptoCore
import Foundation
import Storage

/// Issues server-side, random, single-use, expiring challenges and consumes them atomically.
/// A challenge is only ever accepted if this service issued it and nobody has used it yet.
final class ChallengeService: Sendable {
    let store: any ChallengeStore
    let random: any RandomSource
    let time: any TimeSource
    let lifetime: TimeInterval
    /// Runs with the issuing of challenges: at most once a minute, on the request that issues one.
    let purge: ExpiredRecordPurge

    init(store: any ChallengeStore, random: any RandomSource, time: any TimeSource, lifetime: TimeInterval, purge: ExpiredRecordPurge) {
        self.store = store
        self.random = random
        self.time = time
        self.lifetime = lifetime
        self.purge = purge
    }

    /// A new 32-byte challenge, stored with its ceremony, user, user-verification requirement and context.
    func issue(_ ceremony: CeremonyKind, userID: [UInt8]?, userVerification: String, context: [UInt8]) throws(ServerError) -> [UInt8] {
        let now = time.now
        purge.purgeIfDue(now: now)
        let challenge = random.bytes(count: 32)
        do {
            try store.insertChallenge(
                ChallengeRecord(
                    challenge: challenge,
                    ceremony: ceremony,
                    userID: userID,
                    userVerification: userVerification,
                    context: context,
                    expiresAt: now.addingTimeInterval(lifetime)
                )
            )
        } catch {
            throw .storage(error)
        }
        return challenge
    }

    /// Takes the challenge the client data names: removes it and returns it if it was issued for `ceremony`.
    func consume(_ challengeText: String, for ceremony: CeremonyKind) throws(ServerError) -> ChallengeRecord {
        guard let challenge = Base64URL.decode(challengeText), challenge.count == 32 else {
            throw ServerError(.challengeUnknown)
        }
        let lookup: ChallengeLookup
        do {
            lookup = try store.takeChallenge(challenge, now: time.now)
        } catch {
            throw .storage(error)
        }
        switch lookup {
        case .valid(let record) where record.ceremony == ceremony:
            return record
        case .valid, .unknown:
            throw ServerError(.challengeUnknown)
        case .expired:
            throw ServerError(.challengeExpired)
        }
    }

}
