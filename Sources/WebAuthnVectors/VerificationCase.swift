import Foundation
import JSON
import WebAuthnCore

/// One case of the test-vector schema (TestVectors/PROVENANCE.md): a response plus every input a relying party
/// needs to judge it. `passkeyd verify` reads exactly this, so a user can check a real phone's response offline.
public struct VerificationCase: Decodable, Sendable {
    public enum Ceremony: String, Decodable, Sendable { case registration, authentication }

    public var id: String
    public var ceremony: Ceremony
    public var rpId: String
    public var origins: [String]
    public var expectedChallenge: String
    public var requireUserVerification: Bool?
    public var response: Response
    /// Authentication: the stored COSE key (base64url) and counter.
    public var credentialPublicKey: String?
    public var prevSignCount: UInt32?
    /// Registration: PEM roots the attestation path must end at.
    public var trustAnchors: [String]?
    /// When to evaluate certificate validity (ISO 8601); default: now.
    public var verifyAt: String?
    public var requireUserPresence: Bool?
    public var acceptedRpIds: [String]?
    public var allowCrossOrigin: Bool?
    public var topOrigins: [String]?
    public var expectedType: [String]?
    public var allowedAlgorithms: [Int]?
    public var safetyNetEnforceCTS: Bool?
    public var ignoreSafetyNetTimestamp: Bool?

    /// The response, kept as raw JSON so that each ceremony decodes its own shape.
    public struct Response: Decodable, Sendable {
        let json: Data

        public init(from decoder: any Decoder) throws {
            json = try JSONEncoder().encode(try JSONValue(from: decoder))
        }
    }
}
