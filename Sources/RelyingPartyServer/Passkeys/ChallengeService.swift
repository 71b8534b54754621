import CryptoCore
import Foundation
import HTTPEdge
import Storage

/// Issues server-side, random, single-use, expiring challenges and consumes them atomically.
/// A challenge is only ever accepted if this service issued it and nobody has used it yet.
///
/// A discoverable sign-in's challenge is sealed instead (`ChallengeSeal`): issuing it stores nothing, and its use is
/// stored as a `spentAuthentication` record, by the sign-in's final commit or by `spend`.
final class ChallengeService: Sendable {
    /// How long a spent sealed challenge stays stored after it expired: the clocks of a deployment's nodes may differ
    /// by this much before one of them could accept a challenge another one has forgotten.
    static let spentRetention: TimeInterval = 300

    /// A challenge named by a client, checked and, when it was stored, taken.
    struct OpenedChallenge {
        /// What the challenge was issued with.
        let record: ChallengeRecord
        /// For a sealed challenge, the record whose storing spends it (`spend`, or the ceremony's final commit); nil
        /// for a stored challenge, which is taken already.
        let unspent: ChallengeRecord?
    }

    let store: any ChallengeStore
    let seal: ChallengeSeal
    let random: any RandomSource
    let time: any TimeSource
    let lifetime: TimeInterval
    /// Runs with the issuing of challenges: at most once a minute, on the request that issues one.
    let purge: ExpiredRecordPurge

    init(
        store: any ChallengeStore,
        seal: ChallengeSeal,
        random: any RandomSource,
        time: any TimeSource,
        lifetime: TimeInterval,
        purge: ExpiredRecordPurge
    ) {
        self.store = store
        self.seal = seal
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

    /// A new sealed challenge for a discoverable sign-in: nothing is stored, and no store is asked (it is answered on
    /// the event-loop thread).
    func issueSealed(userVerification: String) -> [UInt8] {
        seal.seal(
            userVerification: userVerification,
            expiresAt: time.now.addingTimeInterval(lifetime),
            random: random.bytes(count: ChallengeSeal.randomLength)
        )
    }

    /// Takes the challenge the client data names: removes it and returns it if it was issued for `ceremony`.
    func consume(_ challengeText: String, for ceremony: CeremonyKind) throws(ServerError) -> ChallengeRecord {
        guard let challenge = Base64URL.decode(challengeText) else { throw ServerError(.challengeUnknown) }
        return try take(challenge, for: ceremony)
    }

    /// The sign-in challenge the client data names: a stored one is taken as `consume` does; a sealed one is checked
    /// (its seal, then its expiry) and returned with the record that spends it, still unspent.
    func open(_ challengeText: String) throws(ServerError) -> OpenedChallenge {
        guard let challenge = Base64URL.decode(challengeText) else { throw ServerError(.challengeUnknown) }
        guard challenge.count == ChallengeSeal.length else {
            return OpenedChallenge(record: try take(challenge, for: .authentication), unspent: nil)
        }
        guard let sealed = seal.open(challenge) else { throw ServerError(.challengeUnknown) }
        let now = time.now
        // A sealed challenge is issued on the loop, which never waits on the store: its verification runs the purge.
        purge.purgeIfDue(now: now)
        guard now < sealed.expiresAt else { throw ServerError(.challengeExpired) }
        let record = ChallengeRecord(
            challenge: challenge,
            ceremony: .authentication,
            userID: nil,
            userVerification: sealed.userVerification,
            context: [],
            expiresAt: sealed.expiresAt
        )
        var spent = record
        spent.ceremony = .spentAuthentication
        spent.expiresAt = sealed.expiresAt.addingTimeInterval(Self.spentRetention)
        return OpenedChallenge(record: record, unspent: spent)
    }

    /// Stores `spent` (an `OpenedChallenge.unspent`): the sealed challenge is used. Refused as `challenge_unknown`
    /// when it was used already, here or on another node.
    func spend(_ spent: ChallengeRecord) throws(ServerError) {
        do {
            try store.insertChallenge(spent)
        } catch  where error.code == .duplicateKey {
            throw ServerError(.challengeUnknown)
        } catch {
            throw .storage(error)
        }
    }

    /// Removes the stored challenge `challenge` and returns it if it was issued for `ceremony`.
    private func take(_ challenge: [UInt8], for ceremony: CeremonyKind) throws(ServerError) -> ChallengeRecord {
        guard challenge.count == 32 else { throw ServerError(.challengeUnknown) }
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
