import HTTPEdge
import JSON
import Storage

/// A Postmark bounce or spam-complaint webhook (one record per request: `RecordType` `Bounce` or `SpamComplaint`,
/// with `Type`, `Email`, `Description`, `Details`), as Postmark's webhook documentation and its client libraries'
/// `Bounce` model describe it. Postmark's `MessageID` is its own, not the message's `Message-ID`: the message is found
/// by its recipient. Postmark does not sign webhooks; it authenticates them by the HTTP Basic credentials of the URL
/// it is given (`MailEventsController.verifyPostmark`).
package struct PostmarkNotification: Sendable, Equatable {
    /// Bounce types that mean the address does not take mail.
    package static let hardTypes: Set<String> = ["HardBounce", "BadEmailAddress", "ManuallyDeactivated"]
    /// Bounce types of a delivery that failed for now.
    package static let softTypes: Set<String> = ["Transient", "SoftBounce", "DnsError", "Blocked", "DMARCPolicy", "SMTPApiError"]

    /// The bounce or complaint it reports; nil for a record passkeyd does not record (a delivery, an open, an
    /// auto-responder).
    package let bounce: ProviderBounce?
    /// Postmark's `ID` of the bounce record, when it sent one: a record sent again (Postmark retries a webhook that
    /// did not answer 200) is recorded once.
    package let recordID: Int?

    /// Reads a notification's body.
    /// - Throws: `400 invalid_json` when it is not strict JSON or not an object; `400 invalid_request` naming the
    ///   member that is missing, of the wrong type, or over its bound.
    package init(json body: [UInt8]) throws(ServerError) {
        guard let tree = StrictJSONParser.strictValue(body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        guard let record = tree.objectValue else { throw ServerError(.invalidJSON, detail: "not an object") }
        guard let recordType = try ProviderBounce.string(record, "RecordType", path: "RecordType", maximum: 64) else {
            throw ServerError(.invalidRequest, member: "RecordType")
        }
        let type = try ProviderBounce.string(record, "Type", path: "Type", maximum: 64)
        if let id = record["ID"], id != .null {
            guard let number = id.integerValue else { throw ServerError(.invalidRequest, member: "ID") }
            recordID = number
        } else {
            recordID = nil
        }
        let kind: MailBounceKind
        switch (recordType, type) {
        case ("SpamComplaint", _), ("Bounce", "SpamComplaint"): kind = .complaint
        case ("Bounce", let type?) where Self.hardTypes.contains(type): kind = .hard
        case ("Bounce", let type?) where Self.softTypes.contains(type): kind = .soft
        case ("Bounce", nil): throw ServerError(.invalidRequest, member: "Type")
        default:
            bounce = nil
            return
        }
        guard let recipient = try ProviderBounce.string(record, "Email", path: "Email", maximum: ProviderBounce.maximumAddressLength),
            !recipient.isEmpty
        else { throw ServerError(.invalidRequest, member: "Email") }
        let description = try ProviderBounce.string(record, "Description", path: "Description", maximum: 4_096)
        let details = try ProviderBounce.string(record, "Details", path: "Details", maximum: 4_096)
        let reason = [type ?? recordType, details.flatMap { $0.isEmpty ? nil : $0 } ?? description].compactMap { $0 }.joined(separator: ": ")
        bounce = ProviderBounce(kind: kind, recipient: recipient, messageID: nil, reason: reason)
    }
}
