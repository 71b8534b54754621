import Foundation

/// An account's imported password hash: a bridge to passkeys for people who signed in with a password in the app's
/// previous system. Only an import writes one; no endpoint sets or changes it.
public struct PasswordHashRecord: Sendable, Equatable {
    public var userID: [UInt8]
    /// The hash as the previous system stored it (a PHC string, bcrypt's, Django's, or passkeyd's Firebase form).
    public var hash: String
    /// When it was imported.
    public var createdAt: Date

    public init(userID: [UInt8], hash: String, createdAt: Date) {
        self.userID = userID
        self.hash = hash
        self.createdAt = createdAt
    }

    /// The longest hash text a store keeps.
    public static let maximumHashBytes = 512

    /// Refuses a record no store keeps: an empty or oversized hash.
    public func validate() throws(StorageError) {
        guard !hash.isEmpty, hash.utf8.count <= Self.maximumHashBytes else {
            throw StorageError(.invalidRecord, "a password hash must be 1 to \(Self.maximumHashBytes) bytes")
        }
    }
}
