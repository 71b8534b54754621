/// `RegistrationResponseJSON` (WebAuthn L3 §5.1): what `PublicKeyCredential.toJSON()` returns after `create()`.
/// Binary members are unpadded base64url text; they are decoded, strictly, during verification.
public struct RegistrationResponseJSON: Codable, Sendable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: ClientExtensionResults?

    public init(
        id: String,
        rawId: String,
        type: String = "public-key",
        response: AuthenticatorAttestationResponseJSON,
        authenticatorAttachment: String? = nil,
        clientExtensionResults: ClientExtensionResults? = nil
    ) {
        self.id = id
        self.rawId = rawId
        self.type = type
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
    }
}

/// `AuthenticatorAttestationResponseJSON` (WebAuthn L3 §5.2.1).
public struct AuthenticatorAttestationResponseJSON: Codable, Sendable {
    public var clientDataJSON: String
    public var attestationObject: String
    public var transports: [String]?
    public var authenticatorData: String?
    public var publicKey: String?
    public var publicKeyAlgorithm: Int?

    public init(clientDataJSON: String, attestationObject: String, transports: [String]? = nil) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// The client extension outputs passkeyd reads (`credProps`); other members are ignored.
public struct ClientExtensionResults: Codable, Sendable {
    public struct CredentialProperties: Codable, Sendable {
        public var rk: Bool?

        public init(rk: Bool? = nil) {
            self.rk = rk
        }
    }

    public var credProps: CredentialProperties?

    public init(credProps: CredentialProperties? = nil) {
        self.credProps = credProps
    }
}
