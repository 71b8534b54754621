import ConfigurationReading
import CryptoCore
import HTTPServer
import Observability

/// The configured OpenID providers (`identityProviders`), by name.
struct IdentityProviders: Sendable {
    private let providers: [String: OpenIDIdentityProvider]

    /// The providers of `settings`, fetching through `client` (required when any is configured).
    init(_ settings: [IdentityProviderSettings], client: HTTPClient?, time: any TimeSource, log: Logger) throws(ConfigurationError) {
        guard !settings.isEmpty else {
            providers = [:]
            return
        }
        guard let client else { throw ConfigurationError(.missingValue, key: "identityProviders", "needs the outbound HTTP client") }
        var providers: [String: OpenIDIdentityProvider] = [:]
        for setting in settings {
            providers[setting.name] = OpenIDIdentityProvider(settings: setting, client: client, time: time, log: log)
        }
        self.providers = providers
    }

    /// The provider named in a path, or `404 identity_provider_not_found` (the name is not echoed).
    func provider(named name: String) throws(ServerError) -> OpenIDIdentityProvider {
        guard let provider = providers[name] else { throw ServerError(.identityProviderNotFound) }
        return provider
    }

    /// Starts the first fetch of every provider's keys (server start-up), so that the first sign-in finds them.
    func prefetchKeys() {
        for provider in providers.values { provider.keyCache.refreshIfDue() }
    }
}
