import HTTPEdge
import JSON
import Storage

/// What a provider's notification says about one message, provider-neutral: read by `MailgunNotification` and
/// `PostmarkNotification`, recorded by `AccountService.recordMailBounce`.
package struct ProviderBounce: Sendable, Equatable {
    /// The longest recipient and `Message-ID` read (RFC 5321's path, RFC 5322's line).
    package static let maximumAddressLength = 254
    package static let maximumMessageIDLength = 998

    package let kind: MailBounceKind
    /// The address the provider tried; nil when the notification names none.
    package let recipient: String?
    /// The identifier of passkeyd's `Message-ID` (`<identifier@sender-domain>`), when the provider returned it.
    package let messageID: String?
    /// The provider's short reason, cut to `MailBounce.maximumReasonLength` bytes, control characters dropped.
    package let reason: String

    package init(kind: MailBounceKind, recipient: String?, messageID: String?, reason: String) {
        self.kind = kind
        self.recipient = recipient
        self.messageID = messageID
        self.reason = Self.bounded(reason)
    }

    /// The identifier of a `Message-ID` value (`<id@domain>` or `id@domain`): what precedes its last `@`; nil when it
    /// has none or is longer than the outbox's identifiers (64 bytes), which passkeyd never wrote.
    package static func identifier(ofMessageID value: String) -> String? {
        var text = Substring(value.trimmingWhitespace())
        if text.hasPrefix("<"), text.hasSuffix(">"), text.count >= 2 { text = text.dropFirst().dropLast() }
        guard let at = text.lastIndex(of: "@") else { return nil }
        let identifier = text[..<at]
        guard !identifier.isEmpty, identifier.utf8.count <= 64 else { return nil }
        return String(identifier)
    }

    /// `text` without control characters, cut on a character boundary to `MailBounce.maximumReasonLength` bytes.
    package static func bounded(_ text: String) -> String {
        var kept = ""
        var bytes = 0
        for character in text where !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            let size = character.utf8.count
            guard bytes + size <= MailBounce.maximumReasonLength else { break }
            kept.append(character)
            bytes += size
        }
        return kept
    }

    /// A string member of `object`, or `400 invalid_request` naming `path` when it is present and not a string or
    /// longer than `maximum` bytes; nil when absent or null.
    package static func string(_ object: [String: JSONValue], _ name: String, path: String, maximum: Int) throws(ServerError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue, text.utf8.count <= maximum else { throw ServerError(.invalidRequest, member: path) }
        return text
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
