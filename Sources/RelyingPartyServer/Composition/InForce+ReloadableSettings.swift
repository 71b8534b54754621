import WebAuthnCore

/// The associated-domain files, trust material and metadata in force (`RelyingPartyServer.reload` replaces them).
typealias SettingsInForce = InForce<ReloadableSettings>

extension InForce where Value == ReloadableSettings {
    /// The relying party in force (its origins follow a reload of the associated domains).
    var relyingParty: RelyingParty {
        withLock { $0.relyingParty }
    }
}
