import Foundation

/// The exact values `ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier:)
/// .createCredentialAssertionRequest(challenge:)` takes, from passkeyd's request options.
public struct PlatformAssertionRequest: Sendable, Equatable {
    /// `rpId`: the provider's `relyingPartyIdentifier`.
    public let relyingPartyIdentifier: String
    /// The challenge's bytes.
    public let challenge: Data
    /// `allowCredentials`' IDs: the request's `allowedCredentials` (empty: any passkey of the RP ID, discoverable).
    public let allowedCredentials: [Data]
    /// `userVerification`: the request's `userVerificationPreference` raw value.
    public let userVerificationPreference: String

    /// Refuses a challenge or credential ID that is not base64url, or an empty RP ID.
    public init(_ options: RequestOptions) throws(PasskeydError) {
        guard let challenge = Base64URL.decode(options.challenge), !challenge.isEmpty else {
            throw PasskeydError(.invalidOptions, message: "the challenge is not base64url")
        }
        guard !options.rpId.isEmpty else { throw PasskeydError(.invalidOptions, message: "rpId is empty") }
        var allowed: [Data] = []
        for descriptor in options.allowCredentials ?? [] {
            guard let id = Base64URL.decode(descriptor.id) else {
                throw PasskeydError(.invalidOptions, message: "an allowed credential ID is not base64url")
            }
            allowed.append(id)
        }
        relyingPartyIdentifier = options.rpId
        self.challenge = challenge
        allowedCredentials = allowed
        userVerificationPreference = options.userVerification ?? "preferred"
    }
}
