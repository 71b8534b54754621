import Foundation

/// `PublicKeyCredentialDescriptorJSON`: a passkey named in `excludeCredentials` or `allowCredentials`.
public struct CredentialDescriptor: Codable, Sendable, Equatable {
    public let type: String
    /// The base64url credential ID.
    public let id: String
    public let transports: [String]?

    public init(type: String = "public-key", id: String, transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }
}
