import Foundation

/// `GET /me`: the user, the RP ID, the passkeys and every way to sign in.
public struct Account: Codable, Sendable, Equatable {
    public struct SignInMethods: Codable, Sendable, Equatable {
        /// How many passkeys.
        public let passkeys: Int
        public let apple: [AppleIdentity]
    }

    /// An Apple ID linked to the account.
    public struct AppleIdentity: Codable, Sendable, Equatable {
        /// Apple's `sub`: what `unlinkApple` takes.
        public let appleUserID: String
        public let email: String?
        public let isPrivateEmail: Bool
        public let emailDisabled: Bool
        public let consentRevoked: Bool
        public let linkedAt: Date
    }

    public let user: User
    public let rpId: String
    public let passkeys: [Passkey]
    public let signInMethods: SignInMethods
    /// The new address waiting for its verification link or code (`PATCH /me {"email"}`), while valid; nil otherwise.
    public let pendingEmail: String?
}
