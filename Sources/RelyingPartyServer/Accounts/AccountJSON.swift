import AppleSignIn
import Foundation
import Storage

/// `GET /me`: the user, the RP ID, the passkeys and every way to sign in.
public struct AccountJSON: Encodable {
    struct SignInMethods: Encodable {
        let passkeys: Int
        let apple: [AppleIdentityJSON]
        /// Identities at OpenID providers (Google, any configured issuer).
        let identities: [FederatedIdentityJSON]
    }

    public struct AppleIdentityJSON: Encodable, Sendable {
        public let appleUserID: String
        public let email: String?
        public let isPrivateEmail: Bool
        public let emailDisabled: Bool
        public let consentRevoked: Bool
        public let linkedAt: Date
        /// Apple's `real_user_status` of the identity's last sign-in (`unsupported`, `unknown`, `likelyReal`), when its
        /// token carried one: an anti-fraud signal for the app's backend.
        public let realUserStatus: String?

        init(_ identity: AppleIdentityRecord) {
            appleUserID = identity.subject
            email = identity.email
            isPrivateEmail = identity.isPrivateEmail
            emailDisabled = identity.emailDisabled
            consentRevoked = identity.consentRevoked
            linkedAt = identity.createdAt
            realUserStatus = identity.realUserStatus.flatMap(RealUserStatus.init(rawValue:)).map { "\($0)" }
        }
    }

    let user: UserJSON
    let rpId: String
    let passkeys: [PasskeyJSON]
    let signInMethods: SignInMethods
    /// The new address waiting for its link or code, while valid (`AccountService.pendingAddress`).
    let pendingEmail: String?
}
