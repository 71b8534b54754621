import CryptoCore
import Foundation

/// The members of the clientDataJSON `SoftwareAuthenticator` writes, in the order browsers write them.
/// Nil challenge and origin take the ceremony's values; a nil crossOrigin or topOrigin is left out.
public struct ClientDataTemplate: Sendable {
    public var type: String
    public var challenge: String?
    public var origin: String?
    public var crossOrigin: Bool?
    public var topOrigin: String?
    /// Further members, each as (name, JSON text of the value), appended in order.
    public var extraMembers: [(name: String, json: String)]
    /// Members (type, challenge, origin) to leave out.
    public var omittedMembers: Set<String>
    /// Prefix the text with a UTF-8 byte order mark.
    public var byteOrderMark: Bool

    public init(
        type: String,
        challenge: String? = nil,
        origin: String? = nil,
        crossOrigin: Bool? = false,
        topOrigin: String? = nil,
        extraMembers: [(name: String, json: String)] = [],
        omittedMembers: Set<String> = [],
        byteOrderMark: Bool = false
    ) {
        self.type = type
        self.challenge = challenge
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
        self.extraMembers = extraMembers
        self.omittedMembers = omittedMembers
        self.byteOrderMark = byteOrderMark
    }

    /// The UTF-8 bytes of the JSON object for a ceremony with `challenge` at `origin`.
    public func encode(challenge defaultChallenge: [UInt8], origin defaultOrigin: String) -> [UInt8] {
        var members: [(String, String)] = [
            ("type", Self.quoted(type)),
            ("challenge", Self.quoted(challenge ?? Base64URL.encode(defaultChallenge))),
            ("origin", Self.quoted(origin ?? defaultOrigin)),
        ]
        members.removeAll { omittedMembers.contains($0.0) }
        if let crossOrigin { members.append(("crossOrigin", crossOrigin ? "true" : "false")) }
        if let topOrigin { members.append(("topOrigin", Self.quoted(topOrigin))) }
        members += extraMembers.map { ($0.name, $0.json) }
        let text = "{" + members.map { Self.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
        return (byteOrderMark ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
