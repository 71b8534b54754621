import Accounts
import ConfigurationFile
import CryptoCore
import Email
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability
import Storage
import Webhooks

/// `POST /email/events/{provider}`: the bounce and complaint webhooks of the SMTP relays' providers (`mailgun`,
/// `postmark`, `resend`), each authenticated the way its provider documents, refused with `401 email_event_unauthenticated`
/// otherwise. A provider not configured under `email.bounces` is `404 not_found`. Every authenticated notification is
/// answered 200 (`recorded` says whether it was recorded on a message), so the provider does not send it again.
struct MailEventsController: Sendable {
    /// The largest notification read: Mailgun's and Postmark's are a few KiB.
    static let maximumBodyBytes = 64 * 1_024
    /// How long a Postmark record's `ID` is remembered: longer than Postmark retries a webhook.
    static let recordMemory: TimeInterval = 7 * 86_400

    /// `email.bounces`; nil takes no provider's notifications.
    let settings: BounceSettings?
    let time: any TimeSource
    let service: AccountService
    /// `passkeyd_mail_bounces_total{kind, provider, recipient}`, when metrics are on.
    let bounces: MetricFamily<Counter>?
    let log: Logger

    func receive(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let provider = context.identifier
        guard let settings else { throw ServerError(.notFound) }
        switch provider {
        case "mailgun":
            guard let key = settings.mailgunSigningKey else { throw ServerError(.notFound) }
            try Self.checkBody(request)
            return try mailgun(try MailgunNotification(json: request.body), key: key, maximumAge: settings.maximumAgeSeconds)
        case "postmark":
            guard let username = settings.postmarkUsername, let password = settings.postmarkPassword else { throw ServerError(.notFound) }
            try Self.verifyPostmark(request, username: username, password: password)
            try Self.checkBody(request)
            let notification = try PostmarkNotification(json: request.body)
            let replayKey = notification.recordID.map { DigestAlgorithm.sha256.hash(Array("passkeyd postmark record:\($0)".utf8)) }
            return try record(notification.bounce, provider: provider, replayKey: replayKey, until: time.now.addingTimeInterval(Self.recordMemory))
        case "resend":
            guard let key = settings.resendKey else { throw ServerError(.notFound) }
            try Self.checkBody(request)
            let id = try verifyStandardWebhook(request, key: key, maximumAge: settings.maximumAgeSeconds)
            let notification = try ResendNotification(json: request.body)
            // The `webhook-id` is the idempotency key: a message sent again (a retry) is recorded once.
            let replayKey = DigestAlgorithm.sha256.hash(Array("passkeyd resend message:\(id)".utf8))
            return try record(notification.bounce, provider: provider, replayKey: replayKey, until: time.now.addingTimeInterval(Self.recordMemory))
        default:
            throw ServerError(.notFound)
        }
    }

    /// Standard Webhooks' verification (Svix sends the same headers prefixed `svix-`): the signature of
    /// `{webhook-id}.{webhook-timestamp}.{body}`, and a timestamp within `maximumAge` of now.
    /// - Returns: the `webhook-id`.
    private func verifyStandardWebhook(_ request: HTTPRequest, key: [UInt8], maximumAge: Int) throws(ServerError) -> String {
        let header = { (name: String) in request.headers["webhook-" + name] ?? request.headers["svix-" + name] }
        guard let id = header("id"), (1...256).contains(id.utf8.count), let timestamp = header("timestamp"),
            (1...12).contains(timestamp.utf8.count), timestamp.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int(timestamp),
            let signatures = header("signature"), signatures.utf8.count <= 4_096
        else { throw ServerError(.emailEventUnauthenticated, detail: "resend: the webhook-id, -timestamp or -signature header is missing") }
        // Standard Webhooks, signature scheme: the content signed is `{webhook-id}.{webhook-timestamp}.{body}`, the key the
        // base64 after `whsec_`, and `webhook-signature` lists space-delimited `v1,{base64 HMAC-SHA256}`; one match
        // verifies (each is compared in constant time).
        let expected = WebhookMessage.signature(
            id: id,
            timestamp: timestamp,
            body: request.body,
            signingKey: MessageAuthenticationKey(.sha256, key: key)
        )
        var matched = false
        for candidate in signatures.split(separator: " ") where ConstantTime.equals(String(candidate), expected) { matched = true }
        guard matched else { throw ServerError(.emailEventUnauthenticated, detail: "resend: no signature matches") }
        // Standard Webhooks, replay protection: a timestamp outside the tolerance (`email.bounces.maximumAgeSeconds`)
        // either way is refused, so a captured message cannot be played later.
        guard abs(time.now.timeIntervalSince1970 - TimeInterval(seconds)) <= TimeInterval(maximumAge) else {
            throw ServerError(.emailEventUnauthenticated, detail: "resend: the timestamp is stale")
        }
        return id
    }

    /// A JSON body of at most `maximumBodyBytes`.
    private static func checkBody(_ request: HTTPRequest) throws(ServerError) {
        guard request.body.count <= maximumBodyBytes else { throw ServerError(.emailEventTooLarge) }
        guard let contentType = request.headers["content-type"], JSONBody.isJSON(mediaType: contentType) else {
            throw ServerError(.unsupportedMediaType)
        }
    }

    /// Mailgun's "Securing Webhooks", then the event recorded with its token as the replay key.
    private func mailgun(_ notification: MailgunNotification, key: [UInt8], maximumAge: Int) throws(ServerError) -> HTTPResponse {
        // "Concatenate timestamp and token values together with no separator. Encode the resulting string with the
        // HMAC algorithm, using your Webhook Signing Key as a key and SHA256 digest mode. Compare the resulting
        // hexdigest to the signature."
        let expected = Hex.encode(MessageAuthenticationKey(.sha256, key: key).authenticate(Array((notification.timestamp + notification.token).utf8)))
        guard ConstantTime.equals(expected, notification.signature) else {
            throw ServerError(.emailEventUnauthenticated, detail: "mailgun: the signature does not match")
        }
        // A signed timestamp more than `email.bounces.maximumAgeSeconds` from now, either way, is refused: a captured
        // notification cannot be played later.
        let now = time.now
        let signedAt = Date(timeIntervalSince1970: TimeInterval(notification.seconds))
        guard abs(now.timeIntervalSince(signedAt)) <= TimeInterval(maximumAge) else {
            throw ServerError(.emailEventUnauthenticated, detail: "mailgun: the timestamp is stale")
        }
        // Each token is taken once while its timestamp is fresh: remembered (hashed) until it is stale anyway.
        let replayKey = DigestAlgorithm.sha256.hash(Array("passkeyd mailgun token:\(notification.token)".utf8))
        let until = signedAt.addingTimeInterval(TimeInterval(maximumAge))
        return try record(notification.bounce, provider: "mailgun", replayKey: replayKey, until: until, duplicateIsReplay: true)
    }

    /// Postmark sends the HTTP Basic credentials of the webhook's URL (`https://user:password@host/…`): the
    /// `Authorization` header's credentials are compared with the configured ones in constant time (their SHA-256, so
    /// that the lengths do not show either).
    static func verifyPostmark(_ request: HTTPRequest, username: String, password: String) throws(ServerError) {
        let expected = DigestAlgorithm.sha256.hash(Array(Data("\(username):\(password)".utf8).base64EncodedString().utf8))
        var sent: [UInt8] = []
        if let authorization = request.headers["authorization"], authorization.utf8.count <= 4_096, authorization.lowercased().hasPrefix("basic ") {
            sent = Array(authorization.dropFirst(6).trimmingCharacters(in: .whitespaces).utf8)
        }
        guard ConstantTime.equals(DigestAlgorithm.sha256.hash(sent), expected) else {
            var error = ServerError(.emailEventUnauthenticated, detail: "postmark: the basic credentials do not match")
            error.headers = [("WWW-Authenticate", "Basic realm=\"passkeyd\"")]
            throw error
        }
    }

    private func record(
        _ bounce: ProviderBounce?,
        provider: String,
        replayKey: [UInt8]?,
        until: Date,
        duplicateIsReplay: Bool = false
    ) throws(ServerError) -> HTTPResponse {
        guard let bounce else { return JSONBody.ok(["received": true, "recorded": false]) }
        switch try service.recordMailBounce(bounce, provider: provider, replayKey: replayKey, until: until) {
        case .recorded(let mail, let suppressed):
            let recipient = MailDelivery.recipientKind(mail.recipient)
            bounces?.increment([bounce.kind.rawValue, provider, recipient])
            log(
                "email: \(provider) reported a \(bounce.kind.rawValue) bounce of message \(mail.id) (\(mail.kind), \(recipient))\(suppressed ? "; address suppressed" : "")"
            )
            return JSONBody.ok(["received": true, "recorded": true])
        case .unmatched:
            log("email: \(provider) reported a \(bounce.kind.rawValue) bounce of no message passkeyd holds")
            return JSONBody.ok(["received": true, "recorded": false])
        case .duplicate:
            if duplicateIsReplay { throw ServerError(.emailEventUnauthenticated, detail: "\(provider): the token was used before") }
            return JSONBody.ok(["received": true, "recorded": false])
        }
    }
}
