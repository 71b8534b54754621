import Foundation

/// `AuthenticationResponseJSON`: what `POST /webauthn/authentication/verify` (and a passkey merge proof) takes. Made
/// from an authenticator's result by `PlatformAssertion.response()`.
public struct AuthenticationResponse: Codable, Sendable, Equatable {
    public struct Response: Codable, Sendable, Equatable {
        public let clientDataJSON: String
        public let authenticatorData: String
        public let signature: String
        public let userHandle: String?
    }

    public let id: String
    public let rawId: String
    public let type: String
    public let response: Response
    public let authenticatorAttachment: String?
    public let clientExtensionResults: [String: String]

    public init(id: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?, attachment: String?) {
        self.id = Base64URL.encode(id)
        rawId = self.id
        type = "public-key"
        response = Response(
            clientDataJSON: Base64URL.encode(clientDataJSON),
            authenticatorData: Base64URL.encode(authenticatorData),
            signature: Base64URL.encode(signature),
            userHandle: userHandle.flatMap { $0.isEmpty ? nil : Base64URL.encode($0) }
        )
        authenticatorAttachment = attachment
        clientExtensionResults = [:]
    }
}
