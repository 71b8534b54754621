import HTTPEdge
import JSON
import Storage

/// A Resend webhook (`{"type", "created_at", "data": {…}}`), as Resend's webhook documentation describes it:
/// `email.bounced` (the recipient's server rejected the message; `data.bounce.type` `Permanent` is a hard bounce,
/// `Transient` or `Undetermined` a soft one) and `email.complained`. The message is found by its recipient
/// (`data.to`): Resend's `email_id` is its own. Resend signs webhooks through Svix, which is Standard Webhooks
/// (`MailEventsController.verifyStandardWebhook`).
package struct ResendNotification: Sendable, Equatable {
    /// The bounce or complaint it reports; nil for an event passkeyd does not record (`email.delivered` …).
    package let bounce: ProviderBounce?

    /// Reads a notification's body.
    /// - Throws: `400 invalid_json` when it is not strict JSON or not an object; `400 invalid_request` naming the
    ///   member that is missing, of the wrong type, or over its bound.
    package init(json body: [UInt8]) throws(ServerError) {
        guard let tree = StrictJSONParser.strictValue(body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        guard let root = tree.objectValue else { throw ServerError(.invalidJSON, detail: "not an object") }
        guard let type = try ProviderBounce.string(root, "type", path: "type", maximum: 64) else {
            throw ServerError(.invalidRequest, member: "type")
        }
        guard type == "email.bounced" || type == "email.complained" else {
            bounce = nil
            return
        }
        guard let data = root["data"]?.objectValue else { throw ServerError(.invalidRequest, member: "data") }
        guard let recipients = data["to"]?.arrayValue, (1...50).contains(recipients.count),
            let recipient = recipients[0].stringValue, !recipient.isEmpty, recipient.utf8.count <= ProviderBounce.maximumAddressLength
        else { throw ServerError(.invalidRequest, member: "data.to") }
        guard type == "email.bounced" else {
            bounce = ProviderBounce(kind: .complaint, recipient: recipient, messageID: nil, reason: "complaint")
            return
        }
        let details = data["bounce"]?.objectValue ?? [:]
        let bounceType = try ProviderBounce.string(details, "type", path: "data.bounce.type", maximum: 64)
        let message = try ProviderBounce.string(details, "message", path: "data.bounce.message", maximum: 4_096)
        let kind: MailBounceKind = bounceType == nil || bounceType == "Permanent" ? .hard : .soft
        let reason = [bounceType, message].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        bounce = ProviderBounce(kind: kind, recipient: recipient, messageID: nil, reason: reason)
    }
}
