import Foundation

/// `PublicKeyCredentialRequestOptionsJSON`, as `POST /webauthn/authentication/options` answers.
public struct RequestOptions: Codable, Sendable, Equatable {
    /// The base64url challenge.
    public let challenge: String
    public let timeout: Int?
    public let rpId: String
    /// Empty for discoverable sign-in (no username given).
    public let allowCredentials: [CredentialDescriptor]?
    public let userVerification: String?
    public let hints: [String]?
}
