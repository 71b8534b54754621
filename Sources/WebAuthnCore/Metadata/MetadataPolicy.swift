import Foundation

/// What the relying party accepts from a FIDO metadata BLOB.
public struct MetadataPolicy: Sendable, Equatable {
    /// How long after its `nextUpdate` date a BLOB is still used. Seven days by default: the FIDO Alliance publishes
    /// a new BLOB before that date, so a daily download keeps it fresh, and a week covers a failed download or a
    /// long weekend without letting a revocation go unseen for long.
    public var staleBLOBGrace: TimeInterval
    /// Authenticators whose latest status report has one of these statuses are refused.
    public var refusedStatuses: Set<AuthenticatorStatus>

    /// The statuses FIDO MDS v3.0 marks as compromised or revoked.
    public static let compromisedStatuses: Set<AuthenticatorStatus> = [
        .revoked, .userVerificationBypass, .attestationKeyCompromise, .userKeyRemoteCompromise, .userKeyPhysicalCompromise,
    ]

    public init(staleBLOBGrace: TimeInterval = 7 * 86_400, refusedStatuses: Set<AuthenticatorStatus> = MetadataPolicy.compromisedStatuses) {
        self.staleBLOBGrace = staleBLOBGrace
        self.refusedStatuses = refusedStatuses
    }
}
