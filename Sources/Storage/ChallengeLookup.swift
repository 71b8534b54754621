/// The outcome of taking a challenge.
public enum ChallengeLookup: Sendable, Equatable {
    /// The challenge existed and had not expired; it has now been removed.
    case valid(ChallengeRecord)
    /// The challenge existed but had expired; it has now been removed.
    case expired
    /// No such challenge: never issued, already taken, or purged.
    case unknown
}
