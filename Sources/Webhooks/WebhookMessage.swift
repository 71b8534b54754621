import CryptoCore
import Foundation
import HTTPFields
import Observability
import OutboundHTTP
import Storage

/// One delivery attempt as Standard Webhooks has it: the JSON body `{"type", "timestamp", "data"}` (the same on every
/// attempt), and the headers `webhook-id` (the event's public ID, `EventRecord.publicID`: `evt_` and its UUID, which a
/// database rolled back or restored does not hand out again; the same on every retry and from every node, and free of
/// the `.` that would make the signed content ambiguous), `webhook-timestamp` (this attempt's Unix seconds) and
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
public struct WebhookMessage: Equatable, Sendable {
    public let id: String
    let body: [UInt8]

    public init(_ event: EventRecord) {
        id = event.publicID
        // The payload is the outbox's JSON object, stored by the server (`AccountEvent`); the envelope is built around it.
        let envelope = #"{"type":"\#(event.type)","timestamp":"\#(RFC3339Timestamp.milliseconds(event.occurredAt))","data":"#
        body = Array(envelope.utf8) + (event.data.isEmpty ? Array("{}".utf8) : event.data) + [UInt8(ascii: "}")]
    }

    /// The `webhook-signature` value for an attempt at `unixSeconds`, under the endpoint's secret (`signingKey`).
    func signature(signingKey: MessageAuthenticationKey, unixSeconds: Int64) -> String {
        Self.signature(id: id, timestamp: String(unixSeconds), body: body, signingKey: signingKey)
    }

    /// Standard Webhooks' signature of `body` sent as message `id` at `timestamp` (the `webhook-timestamp` text):
    /// `v1,` and the base64 of HMAC-SHA256 over `id.timestamp.body`. Signs passkeyd's deliveries and checks the
    /// notifications it receives (a Resend bounce, through Svix).
    public static func signature(id: String, timestamp: String, body: [UInt8], signingKey: MessageAuthenticationKey) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(signingKey.authenticate(signed)).base64EncodedString()
    }

    /// The POST of an attempt made at `now` to `endpoint`, signed with `signingKey` (the endpoint's secret, keyed once
    /// by its worker).
    public func request(to endpoint: WebhookEndpoint, signingKey: MessageAuthenticationKey, now: Date) -> HTTPClientRequest {
        let unixSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("webhook-id", id)
        headers.add("webhook-timestamp", String(unixSeconds))
        headers.add("webhook-signature", signature(signingKey: signingKey, unixSeconds: unixSeconds))
        let timeout = Double(endpoint.timeoutSeconds)
        return HTTPClientRequest(
            method: .post,
            url: endpoint.url,
            headers: headers,
            body: body,
            tls: endpoint.tls,
            connectTimeoutSeconds: timeout,
            deadlineSeconds: timeout,
            maximumReplyBodySize: 65_536
        )
    }
}
