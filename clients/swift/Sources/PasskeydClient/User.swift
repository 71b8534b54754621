import Foundation

/// The user, the same in every answer that carries one.
public struct User: Codable, Sendable, Equatable {
    /// The base64url user handle: the `userID` of the account's passkeys.
    public let id: String
    public let username: String
    public let displayName: String
    public let email: String?
    /// Present with `email`.
    public let emailVerified: Bool?
    /// A random UUID (lowercase) for StoreKit's `appAccountToken`, stable for the account's lifetime.
    public let appAccountToken: String
    /// The app's own id of the person, when its backend gave one (`POST /admin/users` with `externalId`).
    public let externalId: String?
}
