/// `AuthenticationResponseJSON` (WebAuthn L3 §5.1): what `PublicKeyCredential.toJSON()` returns after `get()`.
public struct AuthenticationResponseJSON: Codable, Sendable {
    public var id: String
    public var rawId: String
    public var type: String
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: ClientExtensionResults?

    public init(
        id: String,
        rawId: String,
        type: String = "public-key",
        response: AuthenticatorAssertionResponseJSON,
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

/// `AuthenticatorAssertionResponseJSON` (WebAuthn L3 §5.2.2).
public struct AuthenticatorAssertionResponseJSON: Codable, Sendable {
    public var clientDataJSON: String
    public var authenticatorData: String
    public var signature: String
    public var userHandle: String?

    public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String? = nil) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
