import ConfigurationReading
import CryptoCore
import Foundation
import JSON
import Storage

/// One entry of `webhooks`: where events are delivered (Standard Webhooks), with the secret that signs them.
public struct WebhookEndpoint: Sendable {
    /// The most endpoints a configuration may list.
    public static let maximumCount = 16

    /// The endpoint's stable identity in the store (`WebhookSubscription.endpointID`): `id` when given, else `ep_` and
    /// the first 16 hex digits of the SHA-256 of the URL, the same on every node and after every restart.
    public var id: String
    public var url: String
    /// The key bytes of `whsec_…` (24 to 64 bytes).
    var secret: [UInt8]
    /// The event types delivered, or nil for every type.
    public var eventTypes: Set<String>?
    /// The CA file for a private CA, read at start-up (`loadCAFile`) into `tls`.
    public var caFile: String?
    var tls: TLSClientContext?
    /// Seconds one attempt may take, connection included; a slower answer is a failed attempt.
    public var timeoutSeconds = 15
    /// How long a delivery is retried, from when it was queued, before it is dead.
    public var retryHorizonSeconds = 259_200
    /// The first retry's delay; each next one doubles, up to `maximumRetrySeconds`, with jitter.
    public var firstRetrySeconds = 5
    public var maximumRetrySeconds = 3_600

    /// What the store knows of the endpoint.
    public var subscription: WebhookSubscription { WebhookSubscription(endpointID: id, eventTypes: eventTypes) }

    /// The `webhooks` block: at most `maximumCount` endpoints, each with a distinct ID, delivering only event types of
    /// `knownTypes`.
    public static func list(_ value: JSONValue, knownTypes: Set<String>) throws(ConfigurationError) -> [WebhookEndpoint] {
        guard let items = value.arrayValue else { throw ConfigurationError(.invalidValue, key: "webhooks", "must be a list of endpoints") }
        guard items.count <= maximumCount else {
            throw ConfigurationError(.invalidValue, key: "webhooks", "lists more than \(maximumCount) endpoints")
        }
        var endpoints: [WebhookEndpoint] = []
        for (index, item) in items.enumerated() {
            let endpoint = try WebhookEndpoint(ConfigurationReader(item, path: "webhooks[\(index)]"), knownTypes: knownTypes)
            guard !endpoints.contains(where: { $0.id == endpoint.id }) else {
                throw ConfigurationError(
                    .invalidValue,
                    key: "webhooks[\(index)]",
                    "has the same id as another endpoint (\(endpoint.id)); give each its own"
                )
            }
            endpoints.append(endpoint)
        }
        return endpoints
    }

    /// Reads the endpoint's CA file, when it names one, into `tls` (at start-up); an unreadable one is refused under
    /// `key`.
    public mutating func loadCAFile(key: String) throws(ConfigurationError) {
        guard let caFile else { return }
        do {
            tls = try TLSClientContext(caFile: caFile)
        } catch {
            throw ConfigurationError(.invalidFile, key: key, "\(error.reason)")
        }
    }

    /// The endpoint's secret as the key that signs its messages (`WebhookMessage.request`).
    public var signingKey: MessageAuthenticationKey { MessageAuthenticationKey(key: secret) }

    init(_ reader: ConfigurationReader, knownTypes: Set<String>) throws(ConfigurationError) {
        try reader.only([
            "id", "url", "secret", "events", "caFile", "timeoutSeconds", "retryHorizonSeconds", "firstRetrySeconds", "maximumRetrySeconds",
        ])
        guard let url = try reader.outboundURL("url") else { throw ConfigurationError(.missingValue, key: reader.key("url"), "is required") }
        self.url = url
        secret = try Self.secret(reader.requiredString("secret"), key: reader.key("secret"))
        if let id = try reader.string("id") {
            guard (try? WebhookSubscription(endpointID: id, eventTypes: nil).validate()) != nil else {
                throw ConfigurationError(.invalidValue, key: reader.key("id"), "must be 1 to 64 characters of a-z, 0-9, '_' and '-'")
            }
            self.id = id
        } else {
            self.id = "ep_" + Hex.encode(DigestAlgorithm.sha256.hash(Array(url.utf8)).prefix(8))
        }
        if let types = try reader.strings("events") {
            guard !types.isEmpty else { throw ConfigurationError(.invalidValue, key: reader.key("events"), "must list at least one event type") }
            for type in types where !knownTypes.contains(type) {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("events"),
                    "\"\(type)\" is not an event type (known: \(knownTypes.sorted().joined(separator: ", ")))"
                )
            }
            eventTypes = Set(types)
        }
        caFile = try reader.string("caFile")
        timeoutSeconds = try reader.integer("timeoutSeconds", in: 1...60) ?? timeoutSeconds
        retryHorizonSeconds = try reader.integer("retryHorizonSeconds", in: 60...2_592_000) ?? retryHorizonSeconds
        firstRetrySeconds = try reader.integer("firstRetrySeconds", in: 1...3_600) ?? firstRetrySeconds
        maximumRetrySeconds = try reader.integer("maximumRetrySeconds", in: firstRetrySeconds...86_400) ?? max(firstRetrySeconds, maximumRetrySeconds)
    }

    /// The key bytes of a Standard Webhooks secret: `whsec_` and standard base64 (padding optional) of 24 to 64 bytes.
    static func secret(_ text: String, key: String) throws(ConfigurationError) -> [UInt8] {
        guard text.hasPrefix("whsec_") else {
            throw ConfigurationError(
                .invalidValue,
                key: key,
                "must be a Standard Webhooks secret: whsec_ and base64 (such as `openssl rand -base64 32`)"
            )
        }
        var encoded = String(text.dropFirst(6))
        while encoded.utf8.count % 4 != 0 { encoded += "=" }
        guard let bytes = Data(base64Encoded: encoded).map(Array.init) else {
            throw ConfigurationError(.invalidValue, key: key, "the part after whsec_ is not base64")
        }
        guard (24...64).contains(bytes.count) else {
            throw ConfigurationError(.invalidValue, key: key, "must hold 24 to 64 random bytes (it holds \(bytes.count))")
        }
        return bytes
    }
}
