import CryptoCore
import FederatedIdentity
import HTTPEdge

/// The web flows the routes name: Sign in with Apple's on its literal paths (`/auth/apple/start`, `/auth/apple/callback`),
/// a configured OpenID provider's on `/auth/{provider}/start` and `/auth/{provider}/callback`.
struct WebSignInFlows: Sendable {
    let apple: AppleWebFlow
    let providers: IdentityProviders
    let resolver: FederatedAccountResolver
    let time: any TimeSource

    /// The provider a route names: its `{provider}` segment, or Apple on Apple's literal paths.
    func name(for context: RouteContext) -> String {
        context.parameters.first ?? AppleWebFlow.providerName
    }

    /// How the flow a route names is carried (known before its provider is looked up).
    func style(for context: RouteContext) -> WebSignInStyle {
        context.parameters.isEmpty ? AppleWebFlow.style : OpenIDWebFlow.style
    }

    /// The flow a route names; `404 identity_provider_not_found` for a provider that is not configured.
    func flow(for context: RouteContext) throws(ServerError) -> any WebSignInFlow {
        guard let name = context.parameters.first else { return apple }
        return OpenIDWebFlow(provider: try providers.provider(named: name), resolver: resolver, time: time)
    }
}
