import Foundation

/// The client data (WebAuthn §5.8.1), parsed from `clientDataJSON` as JSON (never compared to a template).
/// Unknown members are ignored.
public struct CollectedClientData: Sendable {
    public let type: String
    /// The challenge exactly as the client wrote it (base64url text); compared as text with the expected one.
    public let challenge: String
    public let origin: String
    public let crossOrigin: Bool
    public let topOrigin: String?
    /// `tokenBinding.status` when the legacy member is an object.
    public let tokenBindingStatus: String?

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        // §7.1 step 5 / §7.2 step 8: UTF-8 decode (which removes a leading byte order mark), strictly.
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw WebAuthnError("clientData.invalidUTF8", "clientDataJSON is not valid UTF-8")
        }
        // §7.1 step 6 / §7.2 step 9: parse JSON.
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch let DecodingError.keyNotFound(key, _) {
            throw WebAuthnError("clientData.missing\(key.stringValue.prefix(1).uppercased() + key.stringValue.dropFirst())", "clientDataJSON has no \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) where !context.codingPath.isEmpty,
                let DecodingError.valueNotFound(_, context) where !context.codingPath.isEmpty {
            let member = context.codingPath.first?.stringValue ?? "value"
            throw WebAuthnError("clientData.invalidMember", "clientDataJSON member \(member) has the wrong JSON type")
        } catch {
            throw WebAuthnError("clientData.invalidJSON", "clientDataJSON is not a JSON object")
        }
        type = wire.type
        challenge = wire.challenge
        origin = wire.origin
        crossOrigin = wire.crossOrigin ?? false
        topOrigin = wire.topOrigin
        tokenBindingStatus = wire.tokenBinding?.status
    }

    private struct Wire: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
        let tokenBinding: TokenBinding?
    }

    /// The legacy Token Binding member: an object with a status, or (in old clients) a bare string, which is ignored.
    private struct TokenBinding: Decodable {
        let status: String?

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.container(keyedBy: Key.self) {
                status = try container.decodeIfPresent(String.self, forKey: .status)
            } else {
                status = nil
            }
        }

        private enum Key: String, CodingKey { case status }
    }
}
