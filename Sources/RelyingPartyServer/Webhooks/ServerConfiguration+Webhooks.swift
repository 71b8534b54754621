import ConfigurationReading
import CryptoCore
import JSON
import WebAuthnCore

extension ServerConfiguration {
    /// `webhooks`: a list of endpoints, each with a distinct ID.
    mutating func parseWebhooks(_ value: JSONValue) throws(ConfigurationError) {
        guard let items = value.arrayValue else { throw ConfigurationError(.invalidValue, key: "webhooks", "must be a list of endpoints") }
        guard items.count <= WebhookEndpoint.maximumCount else {
            throw ConfigurationError(.invalidValue, key: "webhooks", "lists more than \(WebhookEndpoint.maximumCount) endpoints")
        }
        let knownTypes = Set(AccountEvent.Kind.allCases.map(\.rawValue))
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
        webhooks = endpoints
    }

    /// Reads the CA file of each endpoint that names one.
    mutating func loadWebhookCAFiles() throws(ConfigurationError) {
        for index in webhooks.indices {
            guard let file = webhooks[index].caFile else { continue }
            do {
                webhooks[index].tls = try TLSClientContext(caFile: file)
            } catch {
                throw ConfigurationError(.invalidFile, key: "webhooks[\(index)].caFile", "\(error.reason)")
            }
        }
    }
}
