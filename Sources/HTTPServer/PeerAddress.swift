#if canImport(Glibc)
import Glibc
#endif

/// The client a connection is counted against for the per-address cap: an IPv4 address, or the /64 network of an
/// IPv6 address (one host may use any address of its /64). An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`, as a
/// dual-stack listener sees IPv4 clients) counts as that IPv4 address.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
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

    /// The address written as an IPv4 or IPv6 literal (`inet_pton`), or nil for anything else.
    public init?(literal: String) {
        guard literal.utf8.count <= 64 else { return nil }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, literal, &ipv4) == 1 {
            self.init(ipv4: UInt32(bigEndian: ipv4.s_addr))
        } else if inet_pton(AF_INET6, literal, &ipv6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: ipv6) { Array($0) })
        } else {
            return nil
        }
    }

    /// A short stable form for keys: `192.0.2.1`, or `2001:db8:0:1::/64` style (the /64 in hex groups).
    /// Written digit by digit into one buffer (every request's rate-limit key is one): no array of parts, no joins.
    public var description: String {
        String(unsafeUninitializedCapacity: 24) { text in
            var count = 0
            func put(_ byte: UInt8) {
                text[count] = byte
                count += 1
            }
            /// `value`'s digits in `radix` (10 or 16, lowercase), without leading zeros.
            func put(_ value: UInt64, radix: UInt64) {
                var divisor: UInt64 = 1
                while divisor <= value / radix { divisor *= radix }
                while divisor > 0 {
                    let digit = UInt8(value / divisor % radix)
                    put(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
                    divisor /= radix
                }
            }
            if family == AF_INET {
                for shift: UInt32 in [24, 16, 8, 0] {
                    if shift != 24 { put(UInt8(ascii: ".")) }
                    put(UInt64((low >> shift) & 0xff), radix: 10)
                }
            } else {
                for shift: UInt64 in [48, 32, 16, 0] {
                    if shift != 48 { put(UInt8(ascii: ":")) }
                    put((high >> shift) & 0xffff, radix: 16)
                }
                for byte in "::/64".utf8 { put(byte) }
            }
            return count
        }
    }

    private init(family: Int32, high: UInt64, low: UInt32) {
        self.family = family
        self.high = high
        self.low = low
    }

    /// The 4 (IPv4) or 16 (IPv6) bytes of an address, in network order.
    init(bytes: [UInt8]) {
        if bytes.count == 4 {
            self.init(ipv4: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        } else {
            self.init(ipv6: bytes)
        }
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
