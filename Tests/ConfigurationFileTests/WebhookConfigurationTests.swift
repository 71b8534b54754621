import ConfigurationFile
import ConfigurationReading
import Foundation
import Testing

/// The `webhooks` block in the server's configuration (the endpoints themselves: `WebhooksTests.WebhookEndpointTests`).
struct WebhookConfigurationTests {
    static let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    @Test func anUnreadableCAFileStopsTheStartUp() throws {
        let json = #"{"webhooks": [{"url": "https://example.com/", "secret": "\#(Self.secret)", "caFile": "/nonexistent/ca.pem"}]}"#
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(json: Data(json.utf8)) }
        do {
            _ = try ServerConfiguration.load(json: Data(json.utf8))
        } catch {
            #expect(error.key == "webhooks[0].caFile" && error.code == .invalidFile, "\(error)")
        }
    }

    @Test func anEventTypeTheServerDoesNotRaiseIsRefused() {
        let json = #"{"webhooks": [{"url": "https://example.com/", "secret": "\#(Self.secret)", "events": ["user.exploded"]}]}"#
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(json: Data(json.utf8)) }
        do {
            _ = try ServerConfiguration(json: Data(json.utf8))
        } catch {
            #expect(error.key == "webhooks[0].events", "\(error)")
        }
    }
}
