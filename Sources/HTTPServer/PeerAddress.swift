#if canImport(Glibc)
import Glibc
#endif

/// The client a connection is counted against for the per-address cap: an IPv4 address, or the /64 network of an
/// IPv6 address (one host may use any address of its /64). An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`, as a
/// dual-stack listener sees IPv4 clients) counts as that IPv4 address.
struct PeerAddress: Hashable, Sendable {
    private let family: Int32
    private let high: UInt64
    private let low: UInt32

    /// The address of `socketAddress` (AF_INET or AF_INET6), or nil for another family.
    init?(_ socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.init(ipv4: UInt32(bigEndian: address))
        case AF_INET6:
            let bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            self.init(ipv6: bytes)
        default:
            return nil
        }
    }

    private init(family: Int32, high: UInt64, low: UInt32) {
        self.family = family
        self.high = high
        self.low = low
    }

    /// An IPv4 address in host order.
    init(ipv4 address: UInt32) {
        self.init(family: AF_INET, high: 0, low: address)
    }

    /// The 16 bytes of an IPv6 address, in network order.
    init(ipv6 bytes: [UInt8]) {
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            self.init(ipv4: bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        } else {
            self.init(family: AF_INET6, high: bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, low: 0)
        }
    }
}
