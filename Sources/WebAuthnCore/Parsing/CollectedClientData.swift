/// The client data (WebAuthn §5.8.1), parsed from `clientDataJSON` as JSON (never compared to a template).
/// Unknown members are ignored, and so is the reserved `tokenBinding` (§5.8.1: "its use is not expected in Level 3").
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
        do {
            members = Members(list: try StrictJSONParser.parseObjectMembers(body))
        } catch {
            throw WebAuthnError(.invalidJSON, "clientDataJSON is not a strict JSON object (or repeats a member)")
        }
        type = try Self.string(members, "type", missing: .missingType)
        challenge = try Self.string(members, "challenge", missing: .missingChallenge)
        origin = try Self.string(members, "origin", missing: .missingOrigin)
        switch members["crossOrigin"] {
        case nil, .null?: crossOrigin = false
        case .bool(let value)?: crossOrigin = value
        default: throw WebAuthnError(.invalidMember, "clientDataJSON member crossOrigin is not a boolean")
        }
        switch members["topOrigin"] {
        case nil, .null?: topOrigin = nil
        case .string(let value)?: topOrigin = value
        default: throw WebAuthnError(.invalidMember, "clientDataJSON member topOrigin is not a string")
        }
    }

    /// The top-level members in order; lookups scan the few of them.
    private struct Members {
        let list: [StrictJSONParser.JSONMember]

        subscript(name: String) -> JSONValue? { list.first { $0.name == name }?.value }
    }

    private static func string(_ members: Members, _ name: String, missing code: WebAuthnError.Code) throws(WebAuthnError) -> String {
        guard let value = members[name] else { throw WebAuthnError(code, "clientDataJSON has no \(name)") }
        guard let text = value.stringValue else { throw WebAuthnError(.invalidMember, "clientDataJSON member \(name) is not a string") }
        return text
    }
}
