import Foundation

/// The exact values `ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier:)
/// .createCredentialRegistrationRequest(challenge:name:userID:)` takes, from passkeyd's creation options. Pure and
/// platform-independent: the AuthenticationServices layer only copies these into the request.
public struct PlatformRegistrationRequest: Sendable, Equatable {
    /// The RP ID (`rp.id`): the provider's `relyingPartyIdentifier`, a domain of the app's `webcredentials`.
    public let relyingPartyIdentifier: String
    /// The challenge's bytes (not its base64url text).
    public let challenge: Data
    /// `user.name`: the `name:` argument, shown by the passkey sheet.
    public let name: String
    /// `user.displayName`: the request's `displayName`.
    public let displayName: String
    /// The user handle's bytes: the `userID:` argument.
    public let userID: Data
    /// `authenticatorSelection.userVerification`: the request's `userVerificationPreference` raw value
    /// (`required`, `preferred`, `discouraged`).
    public let userVerificationPreference: String
    /// The IDs of the account's passkeys (`excludeCredentials`): the request's `excludedCredentials` (iOS 17.4+).
    public let excludedCredentials: [Data]

    /// COSE ES256, the one algorithm Apple's platform authenticator creates.
    static let es256 = -7

    /// Refuses options a platform authenticator cannot use: a challenge or user handle that is not base64url, or
    /// no ES256 in `pubKeyCredParams` (the passkey could never be created).
    public init(_ options: CreationOptions) throws(PasskeydError) {
        guard let challenge = Base64URL.decode(options.challenge), !challenge.isEmpty else {
            throw PasskeydError(.invalidOptions, message: "the challenge is not base64url")
        }
        guard let userID = Base64URL.decode(options.user.id), !userID.isEmpty, userID.count <= 64 else {
            throw PasskeydError(.invalidOptions, message: "the user handle is not 1 to 64 bytes of base64url")
        }
        guard options.pubKeyCredParams.contains(where: { $0.type == "public-key" && $0.alg == Self.es256 }) else {
            throw PasskeydError(.invalidOptions, message: "pubKeyCredParams lacks ES256, the only algorithm of platform passkeys")
        }
        guard !options.rp.id.isEmpty else { throw PasskeydError(.invalidOptions, message: "rp.id is empty") }
        var excluded: [Data] = []
        for descriptor in options.excludeCredentials ?? [] {
            guard let id = Base64URL.decode(descriptor.id) else {
                throw PasskeydError(.invalidOptions, message: "an excluded credential ID is not base64url")
            }
            excluded.append(id)
        }
        relyingPartyIdentifier = options.rp.id
        self.challenge = challenge
        name = options.user.name
        displayName = options.user.displayName
        self.userID = userID
        userVerificationPreference = options.authenticatorSelection?.userVerification ?? "preferred"
        excludedCredentials = excluded
    }
}
