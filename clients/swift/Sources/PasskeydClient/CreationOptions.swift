import Foundation

/// `PublicKeyCredentialCreationOptionsJSON`, as `POST /webauthn/registration/options` answers.
public struct CreationOptions: Codable, Sendable, Equatable {
    public struct RelyingParty: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
    }

    public struct UserEntity: Codable, Sendable, Equatable {
        /// The base64url user handle.
        public let id: String
        public let name: String
        public let displayName: String
    }

    public struct Parameters: Codable, Sendable, Equatable {
        public let type: String
        public let alg: Int
    }

    public struct AuthenticatorSelection: Codable, Sendable, Equatable {
        public let authenticatorAttachment: String?
        public let residentKey: String?
        public let requireResidentKey: Bool?
        public let userVerification: String?
    }

    public let rp: RelyingParty
    public let user: UserEntity
    /// The base64url challenge.
    public let challenge: String
    public let pubKeyCredParams: [Parameters]
    public let timeout: Int?
    public let excludeCredentials: [CredentialDescriptor]?
    public let authenticatorSelection: AuthenticatorSelection?
    public let attestation: String?
    public let hints: [String]?
}
