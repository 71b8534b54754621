import CryptoCore
import HTTPEdge
import JSON
import Storage

/// A Mailgun webhook (`{"signature": {"timestamp", "token", "signature"}, "event-data": {…}}`), read but not yet
/// verified (`MailEventsController.verifyMailgun`). Mailgun documents the signature in "Securing Webhooks" and the
/// events in "Webhook Payloads" and "Event Types": `failed` with `severity` `permanent` (a hard bounce) or `temporary`
/// (a soft one), and `complained`. Other events (`delivered`, `opened` …) carry no `bounce`.
package struct MailgunNotification: Sendable, Equatable {
    /// Mailgun's token is 50 characters; anything much longer is not Mailgun's.
    package static let maximumTokenLength = 256

    /// The signed timestamp, in seconds since 1970, as its decimal digits (signed as sent).
    package let timestamp: String
    package let token: String
    /// The lowercase hexadecimal HMAC-SHA256 (64 digits).
    package let signature: String
    /// The bounce or complaint it reports; nil for an event passkeyd does not record.
    package let bounce: ProviderBounce?

    /// The signed timestamp as a number of seconds.
    package var seconds: Int { Int(timestamp) ?? 0 }

    /// Reads a notification's body.
    /// - Throws: `400 invalid_json` when it is not strict JSON or not an object; `400 invalid_request` naming the
    ///   member that is missing, of the wrong type, or over its bound.
    package init(json body: [UInt8]) throws(ServerError) {
        guard let tree = StrictJSONParser.strictValue(body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        guard let root = tree.objectValue else { throw ServerError(.invalidJSON, detail: "not an object") }
        guard let signature = root["signature"]?.objectValue else { throw ServerError(.invalidRequest, member: "signature") }
        // Mailgun's examples send the timestamp as a string; a number is read the same.
        let timestamp = signature["timestamp"].flatMap { $0.stringValue ?? $0.integerValue.map(String.init) } ?? ""
        guard (1...12).contains(timestamp.utf8.count), timestamp.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw ServerError(.invalidRequest, member: "signature.timestamp")
        }
        guard let token = signature["token"]?.stringValue, (1...Self.maximumTokenLength).contains(token.utf8.count) else {
            throw ServerError(.invalidRequest, member: "signature.token")
        }
        guard let hex = signature["signature"]?.stringValue, hex.utf8.count == 64 else {
            throw ServerError(.invalidRequest, member: "signature.signature")
        }
        guard let event = root["event-data"]?.objectValue else { throw ServerError(.invalidRequest, member: "event-data") }
        self.timestamp = timestamp
        self.token = token
        self.signature = hex.lowercased()
        bounce = try Self.bounce(event)
    }

    private static func bounce(_ event: [String: JSONValue]) throws(ServerError) -> ProviderBounce? {
        guard let name = try ProviderBounce.string(event, "event", path: "event-data.event", maximum: 64) else {
            throw ServerError(.invalidRequest, member: "event-data.event")
        }
        let kind: MailBounceKind
        switch name {
        case "failed":
            switch try ProviderBounce.string(event, "severity", path: "event-data.severity", maximum: 64) {
            case "permanent": kind = .hard
            case "temporary": kind = .soft
            default: throw ServerError(.invalidRequest, member: "event-data.severity")
            }
        case "complained":
            kind = .complaint
        default:
            return nil
        }
        let recipient = try ProviderBounce.string(event, "recipient", path: "event-data.recipient", maximum: ProviderBounce.maximumAddressLength)
        let headers = event["message"]?.objectValue?["headers"]?.objectValue ?? [:]
        let messageID = try ProviderBounce.string(
            headers,
            "message-id",
            path: "event-data.message.headers.message-id",
            maximum: ProviderBounce.maximumMessageIDLength
        )
        guard recipient != nil || messageID != nil else { throw ServerError(.invalidRequest, member: "event-data.recipient") }
        return ProviderBounce(
            kind: kind,
            recipient: recipient,
            messageID: messageID.flatMap(ProviderBounce.identifier),
            reason: try reason(event, kind)
        )
    }

    /// `delivery-status`'s code and description (or message), else the event's `reason`; `complaint` for a complaint.
    private static func reason(_ event: [String: JSONValue], _ kind: MailBounceKind) throws(ServerError) -> String {
        guard kind != .complaint else { return "complaint" }
        let status = event["delivery-status"]?.objectValue ?? [:]
        let code = status["code"]?.integerValue.map(String.init)
        var text = try ProviderBounce.string(status, "description", path: "event-data.delivery-status.description", maximum: 4_096)
        if text?.isEmpty ?? true { text = try ProviderBounce.string(status, "message", path: "event-data.delivery-status.message", maximum: 4_096) }
        if text?.isEmpty ?? true { text = try ProviderBounce.string(event, "reason", path: "event-data.reason", maximum: 256) }
        return [code, text].compactMap { $0 }.joined(separator: " ")
    }
}
