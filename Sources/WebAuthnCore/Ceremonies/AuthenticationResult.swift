/// A verified assertion and the risk signals the server records (§7.2 steps 19, 23, 26).
public struct AuthenticationResult: Sendable {
    public let credentialID: [UInt8]
    public let userHandle: [UInt8]
    public let signCount: UInt32
    public let flags: AuthenticatorFlags
    /// The BE flag differs from the stored one: a risk signal to record and show, not a reason to refuse.
    public let backupEligibilityChanged: Bool

    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }
}
