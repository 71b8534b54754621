/// The client data (WebAuthn §5.8.1), parsed from `clientDataJSON` as JSON (never compared to a template).
/// Unknown members are ignored, and so is the reserved `tokenBinding` (§5.8.1: "its use is not expected in Level 3").
import JSON

public struct CollectedClientData: Sendable {
    public let type: String
    /// The challenge exactly as the client wrote it (base64url text); compared as text with the expected one.
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool
    public let topOrigin: String?

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        // §7.1 step 5 / §7.2 step 8: UTF-8 decode (which removes a leading byte order mark), strictly.
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard (try? UTF8Span(validating: body.span)) != nil else {
            throw WebAuthnError(.invalidUTF8, "clientDataJSON is not valid UTF-8")
        }
        // §7.1 step 6 / §7.2 step 9: parse JSON.
        let members: Members
        if let plain = PlainClientDataReader.members(of: body) {
            members = plain
        } else {
            do {
                members = Members(list: try StrictJSONParser.parseObjectMembers(body))
            } catch {
                throw WebAuthnError(.invalidJSON, "clientDataJSON is not a strict JSON object (or repeats a member)")
            }
        }
        type = try Self.string(members.type, "type", missing: .missingType)
        challenge = try Self.string(members.challenge, "challenge", missing: .missingChallenge)
        origin = try Self.string(members.origin, "origin", missing: .missingOrigin)
        switch members.crossOrigin {
        case nil, .null?: crossOrigin = false
        case .bool(let value)?: crossOrigin = value
        default: throw WebAuthnError(.invalidMember, "clientDataJSON member crossOrigin is not a boolean")
        }
        switch members.topOrigin {
        case nil, .null?: topOrigin = nil
        case .string(let value)?: topOrigin = value
        default: throw WebAuthnError(.invalidMember, "clientDataJSON member topOrigin is not a string")
        }
    }

    /// The top-level members the steps read (nil: absent), from `PlainClientDataReader` or the general parser.
    struct Members: Equatable {
        var type: JSONValue?
        var challenge: JSONValue?
        var origin: JSONValue?
        var crossOrigin: JSONValue?
        var topOrigin: JSONValue?

        init() {}

        /// The members the general parser read, in order (no name twice).
        init(list: [StrictJSONParser.JSONMember]) {
            for member in list {
                switch member.name {
                case "type": type = member.value
                case "challenge": challenge = member.value
                case "origin": origin = member.value
                case "crossOrigin": crossOrigin = member.value
                case "topOrigin": topOrigin = member.value
                default: continue
                }
            }
        }
    }

    private static func string(_ value: JSONValue?, _ name: String, missing code: WebAuthnError.Code) throws(WebAuthnError) -> String {
        guard let value else { throw WebAuthnError(code, "clientDataJSON has no \(name)") }
        guard let text = value.stringValue else { throw WebAuthnError(.invalidMember, "clientDataJSON member \(name) is not a string") }
        return text
    }
}
