import ConfigurationReading
import Foundation
import HTTPServer
import RelyingPartyServer
import TestSupport
import Testing

/// Issue 41: behind a load balancer the client is read from `X-Forwarded-For` only when the peer is one of
/// `rateLimits.trustedProxies`, as the right-most address that is not a trusted proxy; the deprecated
/// `trustForwardedFor` let any client that reached passkeyd directly choose its address.
@Suite("Trusted proxies")
struct TrustedProxyTests {
    static func server(_ rateLimits: String) throws -> RelyingPartyServer {
        try TestServerFactory.make(
            configuration: TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": "#
                    + rateLimits + "}"
            )
        )
    }

    static func request(from peer: String, forwardedFor fields: [String]) -> HTTPRequest {
        var request = RateLimitTests.optionsRequest(from: peer)
        for field in fields { request.headers.add("X-Forwarded-For", field) }
        return request
    }

    /// The attack the boolean allowed: a client connecting directly names a new address on every request and is never
    /// limited. With `trustedProxies`, a peer outside the ranges is limited as itself whatever it writes.
    @Test func aClientReachingPasskeydDirectlyCannotChooseItsAddress() throws {
        let legacy = try Self.server(#"{"perAddressBurst": 1, "trustForwardedFor": true}"#)
        let proxied = try Self.server(#"{"perAddressBurst": 1, "trustedProxies": ["10.0.0.0/8"]}"#)
        for index in 1...3 {
            let forged = Self.request(from: "198.51.100.20", forwardedFor: ["203.0.113.\(index)"])
            #expect(legacy.handle(forged).status == 200, "the deprecated setting believes every peer")
            #expect(proxied.handle(forged).status == (index == 1 ? 200 : 429), "request \(index) counts as 198.51.100.20")
        }
    }

    /// Through a chain of trusted proxies, the client is the right-most untrusted entry; what the client itself wrote
    /// further left (to pose as another address) is never reached.
    @Test func theRightMostUntrustedAddressIsTheClient() throws {
        let server = try Self.server(#"{"perAddressBurst": 1, "trustedProxies": ["10.0.0.0/8", "2001:db8:ffff::/48"]}"#)
        let first = Self.request(from: "10.0.0.5", forwardedFor: ["192.0.2.1, 203.0.113.50, 10.1.1.1"])
        #expect(server.handle(first).status == 200)
        let forgedLeft = Self.request(from: "::ffff:10.0.0.6", forwardedFor: ["192.0.2.99", "203.0.113.50, 2001:db8:ffff::7"])
        #expect(server.handle(forgedLeft).status == 429, "the same client 203.0.113.50, whatever it wrote on the left")
        let other = Self.request(from: "10.0.0.5", forwardedFor: ["203.0.113.51"])
        #expect(server.handle(other).status == 200)
    }

    /// Issue 44: the client the HTTP server resolved for its suspect lane with this very rule
    /// (`HTTPServerConfiguration.sharesClientAddress`) is what the limits count, not resolved a second time.
    @Test func theClientTheServerResolvedIsCountedAsIs() throws {
        let server = try Self.server(#"{"perAddressBurst": 1, "trustedProxies": ["10.0.0.0/8"]}"#)
        var first = Self.request(from: "10.0.0.5", forwardedFor: ["203.0.113.60"])
        first.clientAddress = "192.0.2.70"
        #expect(server.handle(first).status == 200)
        var second = Self.request(from: "10.0.0.6", forwardedFor: ["203.0.113.61"])
        second.clientAddress = "192.0.2.70"
        #expect(server.handle(second).status == 429, "both counted as 192.0.2.70")
    }

    /// Garbage where the client should be, or only proxies in the chain: the request counts as the proxy itself.
    @Test func anUnreadableChainCountsAsTheProxy() throws {
        let server = try Self.server(#"{"perAddressBurst": 2, "trustedProxies": ["10.0.0.0/8"]}"#)
        #expect(server.handle(Self.request(from: "10.0.0.5", forwardedFor: ["not an address"])).status == 200)
        #expect(server.handle(Self.request(from: "10.0.0.5", forwardedFor: ["10.2.2.2"])).status == 200)
        #expect(server.handle(Self.request(from: "10.0.0.5", forwardedFor: [])).status == 429, "all three were 10.0.0.5")
        // More than 16 proxies in a chain is a mistake: the walk stops there, at the proxy, and never reaches the left.
        let longChain = Array(repeating: "10.9.9.9", count: 40).joined(separator: ", ")
        #expect(server.handle(Self.request(from: "10.0.0.7", forwardedFor: ["203.0.113.80, " + longChain])).status == 200)
        #expect(server.handle(Self.request(from: "10.0.0.7", forwardedFor: ["203.0.113.80, " + longChain])).status == 200)
        #expect(server.handle(Self.request(from: "10.0.0.7", forwardedFor: [])).status == 429, "all three were 10.0.0.7")
        #expect(server.handle(Self.request(from: "10.0.0.7", forwardedFor: ["203.0.113.80, 10.9.9.9"])).status == 200)
    }

    @Test func configurationIsCheckedAndTheDefaultsFollowIt() throws {
        let ranges = try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8", "::1"]}}"#)
        #expect(ranges.rateLimits.trustedProxies.map(\.description) == ["10.0.0.0/8", "::1/128"])
        #expect(ranges.defaultConnectionsPerAddress == ranges.maximumConnections, "every connection comes from a proxy")
        #expect(try TestServerFactory.configuration("{}").defaultConnectionsPerAddress == 256)
        #expect(
            throws: ConfigurationError(
                .invalidValue,
                key: "rateLimits.trustedProxies",
                #""10.0.0.1/8" is not an address range such as 10.0.0.0/8 or 2001:db8::/32 (no bits set past the prefix)"#
            )
        ) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": ["10.0.0.1/8"]}}"#)
        }
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.trustedProxies", "must be a list of strings")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": "10.0.0.0/8"}}"#)
        }
        let tooMany = (0..<65).map { #""10.0.\#($0).0/24""# }.joined(separator: ",")
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.trustedProxies", "must list at most 64 address ranges")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": [\#(tooMany)]}}"#)
        }
        #expect(
            throws: ConfigurationError(
                .invalidValue,
                key: "rateLimits.trustForwardedFor",
                "is deprecated and replaced by trustedProxies: remove it when trustedProxies is set"
            )
        ) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustForwardedFor": true, "trustedProxies": ["10.0.0.0/8"]}}"#)
        }
    }

    /// `proxyProtocol` hands the trusted ranges to the listener, and the per-address cap counts clients again.
    @Test func theProxyProtocolNeedsTrustedProxiesAndReachesTheListener() throws {
        let configuration = try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8"], "proxyProtocol": true}}"#)
        let listener = configuration.httpServerConfiguration(tls: nil, log: .discarding)
        #expect(listener.proxyProtocolFrom.map(\.description) == ["10.0.0.0/8"])
        #expect(listener.maximumConnectionsPerAddress == 256, "each connection counts as the client its header names")
        let off = try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8"]}}"#)
        #expect(off.httpServerConfiguration(tls: nil, log: .discarding).proxyProtocolFrom.isEmpty)
        #expect(
            throws: ConfigurationError(
                .invalidValue,
                key: "rateLimits.proxyProtocol",
                "needs trustedProxies: the address ranges of the load balancers that send the PROXY protocol header"
            )
        ) {
            try TestServerFactory.configuration(#"{"rateLimits": {"proxyProtocol": true}}"#)
        }
        #expect(throws: ConfigurationError(.invalidValue, key: "rateLimits.proxyProtocol", "must be true or false")) {
            try TestServerFactory.configuration(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8"], "proxyProtocol": "v2"}}"#)
        }
    }
}
