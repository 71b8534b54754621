import AccountEvents
import ConfigurationReading
import CryptoCore
import JSON
import Webhooks

extension ServerConfiguration {
    /// `webhooks`: a list of endpoints, each with a distinct ID, delivering the server's event types.
    package mutating func parseWebhooks(_ value: JSONValue) throws(ConfigurationError) {
        webhooks = try WebhookEndpoint.list(value, knownTypes: Set(AccountEvent.Kind.allCases.map(\.rawValue)))
    }

    /// Reads the CA file of each endpoint that names one.
    package mutating func loadWebhookCAFiles() throws(ConfigurationError) {
        for index in webhooks.indices {
            try webhooks[index].loadCAFile(key: "webhooks[\(index)].caFile")
        }
    }
}
