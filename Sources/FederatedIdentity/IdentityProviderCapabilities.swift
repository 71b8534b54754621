/// What an identity provider does beyond verifying ID tokens and linking identities (`IdentityProvider`): only some
/// do each, and a caller asks a provider only for what it has.
package struct IdentityProviderCapabilities: OptionSet, Sendable {
    package let rawValue: Int

    package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Grants can be revoked at the provider when an identity is unlinked or its account deleted (Apple's refresh
    /// tokens, App Store guideline 5.1.1(v)).
    package static let revocation = IdentityProviderCapabilities(rawValue: 1 << 0)
    /// The provider tells the server of changes (Apple's server-to-server notifications: consent revoked, account
    /// deleted, email relay disabled or enabled).
    package static let notifications = IdentityProviderCapabilities(rawValue: 1 << 1)
    /// Identities move between the provider's developer accounts under a new subject (Apple's team transfer,
    /// `transfer_sub`), and a linked identity is re-keyed.
    package static let transfer = IdentityProviderCapabilities(rawValue: 1 << 2)
    /// An authorization code sent with the token is exchanged for a grant the server keeps (Apple's refresh token).
    package static let codeExchange = IdentityProviderCapabilities(rawValue: 1 << 3)
}
