/// `real_user_status`: Apple's on-device judgement of whether the user is a real person.
public enum RealUserStatus: Int, Sendable, Equatable {
    /// The platform cannot tell (not iOS 14 or later, or the claim is from the web).
    case unsupported = 0
    /// Apple has not determined the status.
    case unknown = 1
    /// The user appears to be a real person.
    case likelyReal = 2
}
