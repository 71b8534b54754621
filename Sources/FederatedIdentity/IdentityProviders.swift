import ConfigurationReading
import CryptoCore
import Foundation
import HTTPEdge
import Observability
import OpenIDConnect
import OutboundHTTP

/// The configured OpenID providers (`identityProviders`), by name.
package struct IdentityProviders: Sendable {
    private let providers: [String: OpenIDIdentityProvider]

    /// The providers of `settings`, fetching through `client` (required when any is configured).
    package init(
        _ settings: [IdentityProviderSettings],
        client: HTTPClient?,
        random: any RandomSource,
        time: any TimeSource,
        log: Logger
    ) throws(ConfigurationError) {
        guard !settings.isEmpty else {
            providers = [:]
            return
        }
        guard let client else { throw ConfigurationError(.missingValue, key: "identityProviders", "needs the outbound HTTP client") }
        var providers: [String: OpenIDIdentityProvider] = [:]
        for setting in settings {
            providers[setting.name] = OpenIDIdentityProvider(
                settings: setting,
                assertionKey: try Self.assertionKey(setting),
                client: client,
                random: random,
                time: time,
                log: log
            )
        }
        self.providers = providers
    }

    /// The `private_key_jwt` signing key of a provider that has one: read from its `privateKey` file at start-up.
    private static func assertionKey(_ setting: IdentityProviderSettings) throws(ConfigurationError) -> JWSSigningKey? {
        guard let path = setting.clientAssertionKeyFile, let keyID = setting.clientAssertionKeyID else { return nil }
        let key = "identityProviders.\(setting.name).privateKey"
        guard let data = FileManager.default.contents(atPath: path), data.count <= 65_536, let pem = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(.unreadable, key: key, "cannot read \(path)")
        }
        do {
            return try ClientAssertion.signingKey(pem: pem, keyID: keyID)
        } catch {
            throw ConfigurationError(.invalidFile, key: key, "is not a P-256 or RSA (2048 bits or more) private key with a usable keyID")
        }
    }

    /// The provider named in a path, or `404 identity_provider_not_found` (the name is not echoed).
    package func provider(named name: String) throws(ServerError) -> OpenIDIdentityProvider {
        guard let provider = providers[name] else { throw ServerError(.identityProviderNotFound) }
        return provider
    }

    /// Starts the first fetch of every provider's keys (server start-up), so that the first sign-in finds them.
    package func prefetchKeys() {
        for provider in providers.values { provider.keyCache.refreshIfDue() }
    }
}
