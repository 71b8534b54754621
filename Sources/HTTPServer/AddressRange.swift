#if canImport(Glibc)
import Glibc
#endif

/// A range of IP addresses in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is the range of that one
/// address), as the trusted proxies of a deployment are written. An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`,
/// as a dual-stack listener sees IPv4 clients) is matched as that IPv4 address.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order, with the bits past `prefixLength` cleared.
    private let network: [UInt8]
    private let prefixLength: Int

    /// The range written as `address/prefix` or `address`, or nil for anything else (bits set past the prefix, as in
    /// `10.0.0.1/8`, are refused: such a range is usually a typo).
    public init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = Self.bytes(String(parts[0])) else { return nil }
        let maximum = address.count * 8
        var length = maximum
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ (48...57).contains($0) }), let written = Int(parts[1]), written <= maximum else { return nil }
            length = written
        }
        guard Self.masked(address, to: length) == address else { return nil }
        network = address
        prefixLength = length
    }

    /// Whether `literal` (an IPv4 or IPv6 address as written in a socket address or `X-Forwarded-For`) is in the range.
    public func contains(_ literal: String) -> Bool {
        Self.bytes(literal).map(contains(address:)) ?? false
    }

    /// Whether the address `bytes(_:)` read is in the range: for one address checked against several ranges.
    public func contains(address: [UInt8]) -> Bool {
        address.count == network.count && Self.masked(address, to: prefixLength) == network
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = network.count == 4 ? AF_INET : AF_INET6
        _ = network.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(prefixLength)"
    }

    /// The address's bytes (`inet_pton`): 4 for IPv4 and IPv4-mapped IPv6, 16 for other IPv6; nil for anything else.
    public static func bytes(_ literal: String) -> [UInt8]? {
        guard literal.utf8.count <= 64 else { return nil }
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, literal, &ipv4) == 1 {
            return withUnsafeBytes(of: ipv4) { Array($0) }
        }
        guard inet_pton(AF_INET6, literal, &ipv6) == 1 else { return nil }
        return unmapped(withUnsafeBytes(of: ipv6) { Array($0) })
    }

    /// The bytes of a socket address (AF_INET or AF_INET6) as `bytes(_:)` gives them for its literal; nil for
    /// another family.
    static func bytes(_ socketAddress: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
        case AF_INET6:
            return unmapped(
                socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
            )
        default:
            return nil
        }
    }

    /// An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`) as its 4 bytes; any other IPv6 address as it is.
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff ? Array(bytes[12..<16]) : bytes
    }

    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        }
    }
}
