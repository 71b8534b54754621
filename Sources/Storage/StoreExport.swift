import Foundation

/// Every durable record of a store, for moving a deployment from one driver to another (`passkeyd migrate`).
/// Issued challenges are left out: they live minutes, and a migration runs with passkeyd stopped.
public struct StoreExport: Sendable, Equatable {
    public var users: [UserRecord] = []
    public var credentials: [CredentialRecord] = []
    public var sessions: [SessionRecord] = []
    public var appleIdentities: [AppleIdentityRecord] = []
    /// The Apple nonce replay guard: the SHA-256 of each remembered raw nonce and when it may be forgotten.
    public var appleNonces: [[UInt8]: Date] = [:]
    /// Queued Apple revocations, with their IDs.
    public var appleRevocations: [AppleRevocationRecord] = []

    public init() {}
}
