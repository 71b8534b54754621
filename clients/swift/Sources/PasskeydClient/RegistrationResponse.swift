import Foundation

/// `RegistrationResponseJSON`: what `POST /webauthn/registration/verify` takes. Made from an authenticator's result
/// by `PlatformRegistration.response()`.
public struct RegistrationResponse: Codable, Sendable, Equatable {
    public struct Response: Codable, Sendable, Equatable {
        public let clientDataJSON: String
        public let attestationObject: String
        public let transports: [String]?
    }

    public struct ExtensionResults: Codable, Sendable, Equatable {
        public struct CredentialProperties: Codable, Sendable, Equatable {
            public let rk: Bool?
        }

        public let credProps: CredentialProperties?
    }

    public let id: String
    public let rawId: String
    public let type: String
    public let response: Response
    public let authenticatorAttachment: String?
    public let clientExtensionResults: ExtensionResults

    public init(id: Data, clientDataJSON: Data, attestationObject: Data, transports: [String]?, attachment: String?, residentKey: Bool?) {
        self.id = Base64URL.encode(id)
        rawId = self.id
        type = "public-key"
        response = Response(
            clientDataJSON: Base64URL.encode(clientDataJSON),
            attestationObject: Base64URL.encode(attestationObject),
            transports: transports
        )
        authenticatorAttachment = attachment
        clientExtensionResults = ExtensionResults(credProps: residentKey.map { ExtensionResults.CredentialProperties(rk: $0) })
    }
}
