import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// The pieces behind the connection caps, without sockets: client addresses, per-address counts, the throttled reports.
struct ConnectionBookkeepingTests {
    static func socketAddress(_ text: String) -> PeerAddress? {
        if text.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            guard inet_pton(AF_INET6, text, &address.sin6_addr) == 1 else { return nil }
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress($0) } }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { return nil }
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress($0) } }
    }

    @Test func addressesAreIPv4OrAnIPv6Slash64() {
        #expect(Self.socketAddress("192.0.2.1") == Self.socketAddress("192.0.2.1"))
        #expect(Self.socketAddress("192.0.2.1") != Self.socketAddress("192.0.2.2"))
        #expect(Self.socketAddress("::ffff:192.0.2.1") == Self.socketAddress("192.0.2.1"))
        #expect(Self.socketAddress("2001:db8:1:2::1") == Self.socketAddress("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(Self.socketAddress("2001:db8:1:2::1") != Self.socketAddress("2001:db8:1:3::1"))
        #expect(Self.socketAddress("::1") != Self.socketAddress("127.0.0.1"))
    }

    /// The rate limits' key of an address: dotted decimal, or the /64's four groups in lowercase hex without leading
    /// zeros.
    @Test func addressesAreWrittenAsTheirKeys() {
        let written = { (text: String) in PeerAddress(literal: text)?.description }
        #expect(written("192.0.2.1") == "192.0.2.1")
        #expect(written("0.0.0.0") == "0.0.0.0")
        #expect(written("255.255.255.255") == "255.255.255.255")
        #expect(written("10.100.0.9") == "10.100.0.9")
        #expect(written("::ffff:198.51.100.7") == "198.51.100.7")
        #expect(written("2001:db8:0:1::5") == "2001:db8:0:1::/64")
        #expect(written("2001:0DB8:00A0:0100:1::") == "2001:db8:a0:100::/64")
        #expect(written("::1") == "0:0:0:0::/64")
        #expect(written("ffff:ffff:ffff:ffff:ffff::") == "ffff:ffff:ffff:ffff::/64")
        #expect(written("not an address") == nil)
    }

    @Test func perAddressCountsStopAtTheLimit() throws {
        let counter = ConnectionCounter()
        let first = try #require(Self.socketAddress("192.0.2.1"))
        let second = try #require(Self.socketAddress("192.0.2.2"))
        #expect(counter.admit(first, limit: 2))
        #expect(counter.admit(first, limit: 2))
        #expect(!counter.admit(first, limit: 2))
        #expect(counter.admit(second, limit: 2))
        counter.release(first)
        #expect(counter.count(of: first) == 1)
        #expect(counter.admit(first, limit: 2))
        counter.release(first)
        counter.release(first)
        #expect(counter.count(of: first) == 0)
    }

    @Test func reportsAreOneLinePerTopicPerInterval() {
        let lines = Mutex<[String]>([])
        let log = ThrottledLog(interval: 10, log: .messages { line in lines.withLock { $0.append(line) } })
        for second in 0..<25 {
            for _ in 0..<1000 { log.note("accept", "accept failed", now: 100 + second) }
        }
        log.note("other", "another topic", now: 101)
        #expect(
            lines.withLock { $0 } == [
                "accept failed", "accept failed (and 9999 more since the last report)",
                "accept failed (and 9999 more since the last report)", "another topic",
            ]
        )
    }
}
