import HTTPServer
import Testing

/// The trusted proxies' address ranges (`rateLimits.trustedProxies`): CIDR notation read with `inet_pton`, matched bit
/// by bit, IPv4-mapped IPv6 peers as IPv4.
@Suite("Address ranges")
struct AddressRangeTests {
    @Test func rangesContainExactlyTheirPrefix() throws {
        let private10 = try #require(AddressRange("10.0.0.0/8"))
        #expect(private10.contains("10.255.1.2") && private10.contains("10.0.0.0"))
        #expect(!private10.contains("11.0.0.1") && !private10.contains("9.255.255.255"))
        #expect(private10.contains("::ffff:10.1.2.3"), "a dual-stack listener's IPv4 peer")
        #expect(!private10.contains("2001:db8::1") && !private10.contains("not an address") && !private10.contains(""))

        let odd = try #require(AddressRange("192.168.4.0/22"))
        #expect(odd.contains("192.168.7.255") && !odd.contains("192.168.8.0") && !odd.contains("192.168.3.255"))

        let ipv6 = try #require(AddressRange("2001:db8:abcd::/48"))
        #expect(ipv6.contains("2001:db8:abcd:ffff::1") && !ipv6.contains("2001:db8:abce::1") && !ipv6.contains("10.0.0.1"))
        let narrow = try #require(AddressRange("2001:db8::8/125"))
        #expect(narrow.contains("2001:db8::f") && !narrow.contains("2001:db8::10"), "prefixes past /64 are exact")

        let one = try #require(AddressRange("203.0.113.7"))
        #expect(one.contains("203.0.113.7") && !one.contains("203.0.113.8") && one.description == "203.0.113.7/32")
        #expect(AddressRange("::1")?.description == "::1/128")
        let everything = try #require(AddressRange("0.0.0.0/0"))
        #expect(everything.contains("198.51.100.1") && !everything.contains("::1"))
    }

    @Test func malformedRangesAreRefused() {
        for text in [
            "", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0.1/8", "2001:db8::1/32", "::/129",
            "10.0.0.0/ 8", "10.0.0.0/+8", "10.0.0.0/８", "10.0.0/8", "host.example/8", "::ffff:10.0.0.0/104",
            String(repeating: "1", count: 100),
        ] {
            #expect(AddressRange(text) == nil, "\(text)")
        }
    }
}
