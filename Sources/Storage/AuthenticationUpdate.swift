import Foundation

/// What a verified assertion changes on its credential (`CeremonyStore.completeAuthentication`,
/// `StoreTransaction.recordAuthentication`).
public struct AuthenticationUpdate: Sendable, Equatable {
    /// The credential that made the assertion.
    public var credentialID: [UInt8]
    /// The assertion's signature counter.
    public var signCount: UInt32
    /// The assertion's backup eligibility (BE) flag.
    public var backupEligible: Bool
    /// The assertion's backup state (BS) flag.
    public var backupState: Bool
    /// When the assertion was verified; becomes the credential's `lastUsedAt`.
    public var usedAt: Date
    /// A counter regression was seen: ORed into the credential's `cloneWarning`, which is never cleared.
    public var cloneWarning: Bool
    /// The BE flag differs from the stored one: ORed into `backupEligibilityChanged`, which is never cleared.
    public var backupEligibilityChanged: Bool

    /// Creates an update from its fields.
    public init(
        credentialID: [UInt8],
        signCount: UInt32,
        backupEligible: Bool,
        backupState: Bool,
        usedAt: Date,
        cloneWarning: Bool = false,
        backupEligibilityChanged: Bool
    ) {
        self.credentialID = credentialID
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.usedAt = usedAt
        self.cloneWarning = cloneWarning
        self.backupEligibilityChanged = backupEligibilityChanged
    }
}
