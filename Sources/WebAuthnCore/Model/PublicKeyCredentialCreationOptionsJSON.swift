import CryptoCore

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.4): what `PublicKeyCredential.parseCreationOptionsFromJSON` accepts.
public struct PublicKeyCredentialCreationOptionsJSON: Codable, Sendable, Equatable {
    public struct RelyingPartyEntity: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
    }

    public struct UserEntity: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var displayName: String

        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public struct CredentialParameters: Codable, Sendable, Equatable {
        public var type: String
        public var alg: Int
    }

    public struct AuthenticatorSelection: Codable, Sendable, Equatable {
        public var authenticatorAttachment: String?
        public var residentKey: String
        public var requireResidentKey: Bool
        public var userVerification: String
    }

    public struct Extensions: Codable, Sendable, Equatable {
        public var credProps: Bool
    }

    public var rp: RelyingPartyEntity
    public var user: UserEntity
    public var challenge: String
    public var pubKeyCredParams: [CredentialParameters]
    public var timeout: Int
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    public var authenticatorSelection: AuthenticatorSelection
    public var hints: [String]
    public var attestation: String
    public var extensions: Extensions
}

/// `PublicKeyCredentialDescriptorJSON` (WebAuthn L3 §5.10.3).
public struct PublicKeyCredentialDescriptorJSON: Codable, Sendable, Equatable {
    public var type: String
    public var id: String
    public var transports: [String]?

    public init(id: [UInt8], transports: [String]) {
        type = "public-key"
        self.id = Base64URL.encode(id)
        self.transports = transports.isEmpty ? nil : transports
    }
}
