import Foundation

/// Where the client keeps the session: an app stores it in the Keychain (a `kSecClassGenericPassword` item with
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`), tests in memory. Called on any thread.
public protocol TokenStore: Sendable {
    /// The stored session, or nil.
    func load() throws -> StoredSession?
    /// Stores `session`, or removes the stored one when nil.
    func save(_ session: StoredSession?) throws
}

/// A session token and its expiry, as sign-in answers give them.
public struct StoredSession: Codable, Sendable, Equatable {
    /// Sent as `Authorization: Bearer <token>`. A secret: never log it.
    public let token: String
    public let expiresAt: Date

    public init(token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
