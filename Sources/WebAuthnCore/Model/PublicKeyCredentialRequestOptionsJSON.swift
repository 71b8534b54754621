/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn L3 §5.5): what `PublicKeyCredential.parseRequestOptionsFromJSON` accepts.
public struct PublicKeyCredentialRequestOptionsJSON: Codable, Sendable, Equatable {
    public var challenge: String
    public var timeout: Int
    public var rpId: String
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    public var userVerification: String
    public var hints: [String]
}
