/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let userPresent = AuthenticatorFlags(rawValue: 1 << 0)
    public static let userVerified = AuthenticatorFlags(rawValue: 1 << 2)
    public static let backupEligible = AuthenticatorFlags(rawValue: 1 << 3)
    public static let backupState = AuthenticatorFlags(rawValue: 1 << 4)
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 1 << 6)
    public static let extensionData = AuthenticatorFlags(rawValue: 1 << 7)
}
