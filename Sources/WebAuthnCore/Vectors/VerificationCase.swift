import Foundation

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
            json = try JSONEncoder().encode(try AnyJSON(from: decoder))
        }
    }
}

/// A JSON value read and written unchanged, to keep a nested object as bytes.
enum AnyJSON: Codable, Sendable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([AnyJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: AnyJSON].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
