import Foundation

/// One unused recovery code of an account, as `StoreExport` carries it: only its SHA-256 is ever stored.
public struct RecoveryCodeRecord: Sendable, Equatable {
    public var userID: [UInt8]
    /// The SHA-256 of the code (`StoreTransaction.replaceRecoveryCodes`).
    public var codeHash: [UInt8]
    /// When its set was made.
    public var createdAt: Date

    public init(userID: [UInt8], codeHash: [UInt8], createdAt: Date) {
        self.userID = userID
        self.codeHash = codeHash
        self.createdAt = createdAt
    }
}
