import ConfigurationReading
import Foundation
import HTTPFields
import HTTPServer
import RelyingPartyServer
import TestSupport
import Testing

/// Issue 7: rate limits per client address and per account, `429` with `Retry-After`, and defaults that let a
/// busy office behind one NAT address sign in.
@Suite("Rate limits")
struct RateLimitTests {
    static func optionsRequest(from address: String, username: String? = nil) -> HTTPRequest {
        let body = username.map { #"{"username":"\#($0)"}"# } ?? "{}"
        return HTTPRequest(
            method: "POST",
            path: "/webauthn/authentication/options",
            headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Array(body.utf8),
            remoteAddress: address
        )
    }

    @Test func defaultsLetAnOfficeBehindOneAddressMake120CeremonyRequestsAMinute() throws {
        let clock = ManualClock()
        let server = try TestServerFactory.make(clock: clock)
        for _ in 0..<60 {
            for _ in 0..<2 {
                #expect(server.handle(Self.optionsRequest(from: "203.0.113.7")).status == 200)
            }
            clock.advance(by: 1)
        }
    }

    @Test func aBurstBeyondTheAddressLimitGets429WithRetryAfter() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAddressPerMinute": 60, "perAddressBurst": 5}}"#
        )
        let clock = ManualClock()
        let server = try TestServerFactory.make(configuration: configuration, clock: clock)
        for _ in 0..<5 { #expect(server.handle(Self.optionsRequest(from: "198.51.100.1")).status == 200) }
        let refused = server.handle(Self.optionsRequest(from: "198.51.100.1"))
        #expect(refused.status == 429)
        #expect(ServerReply(refused).errorCode == "rate_limited")
        #expect(refused.headers["retry-after"] == "1")
        // Another address is not affected, and the bucket refills with time.
        #expect(server.handle(Self.optionsRequest(from: "198.51.100.2")).status == 200)
        clock.advance(by: 1)
        #expect(server.handle(Self.optionsRequest(from: "198.51.100.1")).status == 200)
    }

    /// Issue 15: options naming an account are not limited per account (that let anyone lock its owner out); failed
    /// verifications are, per credential, from any address (`LockoutTests` has the attack).
    @Test func optionsNamingAnAccountAreLimitedPerAddressOnly() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAccountPerMinute": 6, "perAccountBurst": 3}}"#
        )
        let server = try TestServerFactory.make(configuration: configuration)
        for index in 0..<10 {
            #expect(server.handle(Self.optionsRequest(from: "192.0.2.\(index)", username: "alice")).status == 200)
        }
    }

    /// Issue 15: the limiters' tables have a fixed capacity (`maximumKeys`): a flood of unique addresses drops idle
    /// buckets first, so an address that is being limited stays limited.
    @Test func theTablesHoldAtMostMaximumKeysAndDropIdleBucketsFirst() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "#
                + #""rateLimits": {"perAddressBurst": 5, "maximumKeys": 100}}"#
        )
        let clock = ManualClock()
        let server = try TestServerFactory.make(configuration: configuration, clock: clock)
        for index in 0..<99 { #expect(server.handle(Self.optionsRequest(from: "192.0.2.\(index)")).status == 200) }
        clock.advance(by: 10)
        for _ in 0..<5 { #expect(server.handle(Self.optionsRequest(from: "198.51.100.1")).status == 200) }
        #expect(server.handle(Self.optionsRequest(from: "198.51.100.1")).status == 429)
        for index in 0..<50 { #expect(server.handle(Self.optionsRequest(from: "203.0.113.\(index)")).status == 200) }
        #expect(server.handle(Self.optionsRequest(from: "198.51.100.1")).status == 429, "the limited address was not evicted")
        for index in 0..<5000 {
            _ = server.handle(Self.optionsRequest(from: "10.0.\(index / 256).\(index % 256)"))
            #expect(server.rateLimiterSizes.addresses <= 100)
            #expect(server.rateLimiterSizes.challenges <= 100)
        }
    }

    /// Behind a proxy, the key is the forwarded address parsed as one (an IPv6 client by its /64): anything else in
    /// the field counts as the proxy, so that no key is longer than an address.
    @Test func forwardedAddressesAreParsedAndIPv6CountsBy64() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "#
                + #""rateLimits": {"perAddressBurst": 2, "trustForwardedFor": true}}"#
        )
        let server = try TestServerFactory.make(configuration: configuration)
        func request(_ forwarded: String) -> HTTPRequest {
            var request = Self.optionsRequest(from: "127.0.0.1")
            request.headers.add("X-Forwarded-For", forwarded)
            return request
        }
        #expect(server.handle(request("2001:db8:1:2::1")).status == 200)
        #expect(server.handle(request("2001:db8:1:2:ffff::9")).status == 200)
        #expect(server.handle(request("2001:db8:1:2:abcd::5")).status == 429, "one /64 is one client")
        #expect(server.handle(request("2001:db8:1:3::1")).status == 200)
        #expect(server.handle(request(String(repeating: "x", count: 5000))).status == 200)
        #expect(server.handle(request("not an address")).status == 200)
        #expect(server.handle(request("999.1.1.1")).status == 429, "garbage counts as the proxy's own address")
    }

    @Test func outstandingChallengesPerAddressAreBounded() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"outstandingChallengesPerAddress": 4, "perAddressBurst": 1000, "perAddressPerMinute": 1000}}"#
        )
        let server = try TestServerFactory.make(configuration: configuration)
        for _ in 0..<4 { #expect(server.handle(Self.optionsRequest(from: "192.0.2.50")).status == 200) }
        #expect(server.handle(Self.optionsRequest(from: "192.0.2.50")).status == 429)
    }

    @Test func forwardedForIsOnlyTrustedWhenConfigured() throws {
        let trusting = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAddressBurst": 1, "trustForwardedFor": true}}"#
        )
        let server = try TestServerFactory.make(configuration: trusting)
        var request = Self.optionsRequest(from: "127.0.0.1")
        request.headers.add("X-Forwarded-For", "203.0.113.1, 198.51.100.77")
        #expect(server.handle(request).status == 200)
        #expect(server.handle(request).status == 429)
        var other = Self.optionsRequest(from: "127.0.0.1")
        other.headers.add("X-Forwarded-For", "198.51.100.78")
        #expect(server.handle(other).status == 200)
    }

    /// A proxy that adds its own `X-Forwarded-For` field after the client's: the last entry of the last field is the
    /// client address, not whatever the client wrote in the first field.
    @Test func forwardedForFieldsAddedByTheProxyCountAfterTheClientsOwn() throws {
        let trusting = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAddressBurst": 1, "trustForwardedFor": true}}"#
        )
        let server = try TestServerFactory.make(configuration: trusting)
        for forged in ["192.0.2.1", "192.0.2.2"] {
            var request = Self.optionsRequest(from: "127.0.0.1")
            request.headers.add("X-Forwarded-For", forged)
            request.headers.add("X-Forwarded-For", "203.0.113.9")
            #expect(server.handle(request).status == (forged == "192.0.2.1" ? 200 : 429))
        }
    }

    @Test func invalidRateLimitConfigurationNamesTheKey() throws {
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.perAddressBurst", "must be a whole number from 1 to 1000000")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"perAddressBurst": 0}}"#)
        }
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.trustForwardedFor", "must be true or false")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustForwardedFor": "yes"}}"#)
        }
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.nodes", "must be a whole number from 1 to 1000")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"nodes": 0}}"#)
        }
        #expect(try TestServerFactory.configuration(#"{"rateLimits": {"nodes": 2}}"#).rateLimits.nodes == 2)
    }
}
