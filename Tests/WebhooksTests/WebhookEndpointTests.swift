import ConfigurationReading
import CryptoCore
import Foundation
import HTTPFields
import JSON
import OutboundHTTP
import Storage
import Testing

@testable import Webhooks

/// The `webhooks` block: what it accepts, what it refuses (naming the key), and what an attempt's result means.
struct WebhookEndpointTests {
    static let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
    /// Event types as the server's (`AccountEvent.Kind`): `user.exploded` is none of them.
    static let knownTypes: Set<String> = ["user.created", "user.deleted", "user.updated"]

    static func parse(_ webhooks: String) throws(ConfigurationError) -> [WebhookEndpoint] {
        guard let value = StrictJSONParser.strictValue(Array(webhooks.utf8)) else {
            throw ConfigurationError(.invalidValue, key: "webhooks", "is not JSON")
        }
        return try WebhookEndpoint.list(value, knownTypes: knownTypes)
    }

    @Test func endpointsAndTheirDefaults() throws {
        let endpoints = try Self.parse(
            #"[{"url": "https://hooks.example.com/passkeyd", "secret": "\#(Self.secret)"}, {"id": "crm", "url": "http://127.0.0.1:9/x", "secret": "\#(Self.secret.dropLast())", "events": ["user.deleted", "user.created"]}]"#
        )
        #expect(endpoints.count == 2)
        #expect(endpoints[0].id == "ep_" + Hex.encode(DigestAlgorithm.sha256.hash(Array("https://hooks.example.com/passkeyd".utf8)).prefix(8)))
        #expect(endpoints[0].eventTypes == nil, "every type")
        #expect(endpoints[0].secret == [UInt8](repeating: 7, count: 32))
        #expect(endpoints[0].timeoutSeconds == 15 && endpoints[0].retryHorizonSeconds == 259_200 && endpoints[0].firstRetrySeconds == 5)
        #expect(endpoints[1].id == "crm")
        #expect(endpoints[1].eventTypes == ["user.deleted", "user.created"])
        #expect(endpoints[1].secret == [UInt8](repeating: 7, count: 32), "unpadded base64 is accepted")
        #expect(try Self.parse("[]").isEmpty)
    }

    @Test(arguments: [
        (#"[{"url": "http://hooks.example.com/", "secret": "S"}]"#, "webhooks[0].url"),
        (#"[{"url": "ftp://127.0.0.1/", "secret": "S"}]"#, "webhooks[0].url"),
        (#"[{"url": "https://user:pw@example.com/", "secret": "S"}]"#, "webhooks[0].url"),
        (#"[{"secret": "S"}]"#, "webhooks[0].url"),
        (#"[{"url": "https://example.com/", "secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}]"#, "webhooks[0].secret"),
        (#"[{"url": "https://example.com/", "secret": "whsec_c2hvcnQ="}]"#, "webhooks[0].secret"),
        (#"[{"url": "https://example.com/", "secret": "whsec_!!!!"}]"#, "webhooks[0].secret"),
        (#"[{"url": "https://example.com/", "secret": "whsec_\#(Data(repeating: 1, count: 65).base64EncodedString())"}]"#, "webhooks[0].secret"),
        (#"[{"url": "https://example.com/"}]"#, "webhooks[0].secret"),
        (#"[{"url": "https://example.com/", "secret": "S", "events": ["user.exploded"]}]"#, "webhooks[0].events"),
        (#"[{"url": "https://example.com/", "secret": "S", "events": []}]"#, "webhooks[0].events"),
        (#"[{"url": "https://example.com/", "secret": "S", "id": "Has.Dots"}]"#, "webhooks[0].id"),
        (#"[{"url": "https://example.com/", "secret": "S", "timeoutSeconds": 0}]"#, "webhooks[0].timeoutSeconds"),
        (#"[{"url": "https://example.com/", "secret": "S", "retryHorizonSeconds": 10}]"#, "webhooks[0].retryHorizonSeconds"),
        (#"[{"url": "https://example.com/", "secret": "S", "colour": "blue"}]"#, "webhooks[0].colour"),
        (
            #"[{"url": "https://a.example.com/", "secret": "S", "id": "x"}, {"url": "https://b.example.com/", "secret": "S", "id": "x"}]"#,
            "webhooks[1]"
        ),
        (#"[{"url": "https://a.example.com/", "secret": "S"}, {"url": "https://a.example.com/", "secret": "S"}]"#, "webhooks[1]"),
        (#"{"url": "https://example.com/"}"#, "webhooks"),
    ])
    func refusalsNameTheKey(webhooks: String, key: String) {
        let json = webhooks.replacingOccurrences(of: #""S""#, with: "\"\(Self.secret)\"")
        #expect(throws: ConfigurationError.self) { try Self.parse(json) }
        do {
            _ = try Self.parse(json)
        } catch {
            #expect(error.key == key, "\(error)")
        }
    }

    @Test func anUnreadableCAFileIsRefusedUnderItsKey() throws {
        var endpoint = try Self.parse(#"[{"url": "https://example.com/", "secret": "\#(Self.secret)", "caFile": "/nonexistent/ca.pem"}]"#)[0]
        #expect(throws: ConfigurationError.self) { try endpoint.loadCAFile(key: "webhooks[0].caFile") }
        do {
            try endpoint.loadCAFile(key: "webhooks[0].caFile")
        } catch {
            #expect(error.key == "webhooks[0].caFile" && error.code == .invalidFile, "\(error)")
        }
    }

    @Test func whatAnAttemptsResultMeans() throws {
        let endpoint = try Self.parse(#"[{"url": "https://example.com/", "secret": "\#(Self.secret)", "retryHorizonSeconds": 3600}]"#)[0]
        let policy = WebhookRetryPolicy(endpoint: endpoint, random: SystemRandom())
        let queued = Date(timeIntervalSince1970: 1_800_000_000)
        func outcome(_ result: Result<HTTPClientReply, HTTPClientError>, attempts: Int = 0, at offset: TimeInterval = 0) -> WebhookDeliveryOutcome {
            policy.outcome(of: result, attempts: attempts, queuedAt: queued, now: queued.addingTimeInterval(offset))
        }
        #expect(outcome(.success(HTTPClientReply(status: 204))) == .delivered(status: 204))
        #expect(outcome(.success(HTTPClientReply(status: 410))) == .dead(status: 410, error: "webhook.gone"))
        guard case .retry(let next, 500, "webhook.unexpectedStatus") = outcome(.success(HTTPClientReply(status: 500))) else {
            Issue.record("a 500 is retried")
            return
        }
        #expect((2.5...5).contains(next.timeIntervalSince(queued)), "the first retry after 5 s with jitter")
        guard case .retry(_, 301, _) = outcome(.success(HTTPClientReply(status: 301, headers: HTTPHeaders([("Location", "https://x/")])))) else {
            Issue.record("a redirect is a failure, not followed")
            return
        }
        guard case .retry(let later, 503, _) = outcome(.success(HTTPClientReply(status: 503, headers: HTTPHeaders([("Retry-After", "120")])))) else {
            Issue.record("a 503 is retried")
            return
        }
        #expect(later.timeIntervalSince(queued) >= 120, "Retry-After is honoured")
        guard case .retry(_, nil, "http.clientTimeout") = outcome(.failure(HTTPClientError(.timeout, "slow"))) else {
            Issue.record("a timeout is retried")
            return
        }
        #expect(
            outcome(.failure(HTTPClientError(.connectFailed, "down")), attempts: 3, at: 3_590)
                == .dead(status: nil, error: "http.clientConnectFailed")
        )
        let delays = (1...12).map { policy.delay(afterAttempt: $0) }
        #expect(delays[0] >= 2.5 && delays[0] <= 5 && delays[4] >= 40 && delays[4] <= 80, "\(delays)")
        #expect(delays.allSatisfy { $0 <= 3_600 }, "at most maximumRetrySeconds")
    }
}
