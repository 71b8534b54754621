#if canImport(Glibc)
import Glibc
#endif

/// Reads the header a load balancer puts before a connection's own bytes to name the client it relays: HAProxy's
/// "The PROXY protocol", version 1 (a text line) and version 2 (binary). Pure: it reads the first bytes a connection
/// received and says whether they are a whole header, the start of one, or not one.
public enum ProxyProtocolHeader {
    /// What the first bytes of a connection are.
    public enum Reading: Equatable, Sendable {
        /// The start of a header: wait for more bytes (until the connection's read deadline).
        case incomplete
        /// Not a header, or a header the protocol forbids: the connection must be closed (`reason` is for the log).
        case invalid(reason: String)
        /// A whole header of `length` bytes; `client` is the address it names, nil when the connection's own peer is
        /// the client (a `LOCAL` health check, `UNKNOWN`, or an address family other than IPv4 and IPv6).
        case header(length: Int, client: ProxiedClient?)
    }

    /// The client a header names.
    public struct ProxiedClient: Equatable, Sendable {
        /// The address as `inet_ntop` writes it (`192.0.2.1`, `2001:db8::1`).
        public let address: String
        /// The address's bytes, network order: 4 (IPv4) or 16 (IPv6).
        public let bytes: [UInt8]
        public let port: UInt16
    }

    /// The longest version 1 header: "a string of at most 107 bytes" (§2.1), CRLF included.
    public static let maximumVersion1Length = 107
    /// The longest version 2 header read: the 16 fixed bytes and at most 1,008 of addresses and TLVs (a load balancer's
    /// own TLVs, such as AWS's endpoint ID, are tens of bytes). A longer one is refused rather than buffered.
    public static let maximumVersion2Length = 1024
    /// The most bytes `read` needs to see to decide.
    public static let maximumLength = maximumVersion2Length

    /// §2.2: "the binary header format starts with a constant 12 bytes block containing the protocol signature".
    static let version2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// §2.1: "a string identifying the protocol: 'PROXY' ( \x50 \x52 \x4F \x58 \x59 )", then "exactly one space".
    static let version1Prefix = Array("PROXY ".utf8)

    /// Reads the header at the start of `bytes` (the connection's first bytes, as many as have arrived).
    public static func read(_ bytes: some Collection<UInt8>) -> Reading {
        let bytes = Array(bytes.prefix(maximumLength))
        // §2: "The receiver MUST be configured to only receive the protocol described in this specification and MUST
        // not try to guess whether the protocol header is present or not": what is neither header is refused.
        if bytes.starts(with: version2Signature) { return readVersion2(bytes) }
        if bytes.starts(with: version1Prefix) { return readVersion1(bytes) }
        if version2Signature.starts(with: bytes) || version1Prefix.starts(with: bytes) { return .incomplete }
        return .invalid(reason: "the connection does not start with a PROXY protocol header")
    }

    // MARK: Version 1

    private static func readVersion1(_ bytes: [UInt8]) -> Reading {
        // §2.1: "The receiver must wait for the CRLF sequence before starting to decode the addresses" and "a receiver
        // may reject an incomplete line which does not contain the CRLF sequence in the first 107 characters".
        guard let lineFeed = bytes.firstIndex(of: 0x0A) else {
            return bytes.count >= maximumVersion1Length ? .invalid(reason: "a version 1 header is longer than 107 bytes") : .incomplete
        }
        let length = lineFeed + 1
        guard length <= maximumVersion1Length else { return .invalid(reason: "a version 1 header is longer than 107 bytes") }
        guard lineFeed > 0, bytes[lineFeed - 1] == 0x0D else { return .invalid(reason: "a version 1 header does not end with CRLF") }
        let line = bytes[version1Prefix.count..<(lineFeed - 1)]
        // Fields are separated by exactly one space: empty fields (two spaces) are refused.
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        // §2.1: "a string indicating the proxied INET protocol and family ... 'TCP4' ... 'TCP6' ... Other, unsupported,
        // or unknown protocols must be notified by the word 'UNKNOWN'"; then "the receiver must ignore anything
        // presented before the CRLF is found" and use the real connection's endpoints.
        guard let family = fields.first else { return .invalid(reason: "a version 1 header names no protocol") }
        if family == "UNKNOWN" { return .header(length: length, client: nil) }
        guard family == "TCP4" || family == "TCP6" else { return .invalid(reason: "a version 1 header names an unknown protocol") }
        // "the layer 3 source address in its canonical format", destination, "the TCP source port represented as a
        // decimal integer in the range [0..65535] inclusive", destination port.
        guard fields.count == 5 else { return .invalid(reason: "a version 1 header does not have 5 fields") }
        let addressFamily = family == "TCP4" ? AF_INET : AF_INET6
        guard let source = addressBytes(fields[1], family: addressFamily), addressBytes(fields[2], family: addressFamily) != nil else {
            return .invalid(reason: "a version 1 header's address is not an \(family == "TCP4" ? "IPv4" : "IPv6") address")
        }
        guard let sourcePort = port(fields[3]), port(fields[4]) != nil else {
            return .invalid(reason: "a version 1 header's port is not a number from 0 to 65535")
        }
        return .header(length: length, client: client(source, port: sourcePort))
    }

    /// A decimal port without sign or leading zero, at most 65535.
    private static func port(_ text: String) -> UInt16? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }), text == "0" || !text.hasPrefix("0") else {
            return nil
        }
        return UInt16(text)
    }

    /// `inet_pton` of `text` in `family`: 4 or 16 bytes.
    private static func addressBytes(_ text: String, family: Int32) -> [UInt8]? {
        guard text.utf8.count <= 45 else { return nil }
        var address = in6_addr()
        guard inet_pton(family, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: address) { Array($0.prefix(family == AF_INET ? 4 : 16)) }
    }

    // MARK: Version 2

    private static func readVersion2(_ bytes: [UInt8]) -> Reading {
        guard bytes.count >= 16 else { return .incomplete }
        // §2.2: "The 13th byte is the protocol version and command. The highest four bits contains the version. As of
        // this specification, it must always be sent as \x2 and the receiver must only accept this value."
        guard bytes[12] >> 4 == 2 else { return .invalid(reason: "a version 2 header has another version") }
        // "The lowest four bits represents the command: \x0 : LOCAL ... \x1 : PROXY ... other values are unassigned
        // and must not be emitted by senders. Receivers must drop connections presenting unexpected values here."
        let command = bytes[12] & 0x0F
        guard command <= 1 else { return .invalid(reason: "a version 2 header has an unknown command") }
        // "The 15th and 16th bytes is the address length in bytes in network endian order."
        let length = 16 + (Int(bytes[14]) << 8 | Int(bytes[15]))
        guard length <= maximumVersion2Length else { return .invalid(reason: "a version 2 header is longer than \(maximumVersion2Length) bytes") }
        guard bytes.count >= length else { return .incomplete }
        // "LOCAL: ... The receiver must accept this connection as valid and must use the real connection endpoints and
        // discard the protocol block including the family which is ignored."
        if command == 0 { return .header(length: length, client: nil) }
        // "The 14th byte contains the transport protocol and address family. The highest 4 bits contain the address
        // family, the lowest 4 bits contain the protocol": \x0 UNSPEC, \x1 INET, \x2 INET6, \x3 UNIX; \x0 UNSPEC,
        // \x1 STREAM, \x2 DGRAM. "Other values are unspecified and must not be emitted ... Receivers must drop
        // connections presenting unexpected values here."
        let family = bytes[13] >> 4
        let transport = bytes[13] & 0x0F
        guard family <= 3, transport <= 2 else { return .invalid(reason: "a version 2 header has an unknown address family or protocol") }
        // "UNSPEC: the connection is forwarded for an unknown, unspecified or unsupported protocol. The sender should
        // use this family when sending LOCAL commands or when dealing with unsupported protocol families. The
        // receiver is free to accept the connection anyway and use the real endpoint addresses or to reject it."
        // A client relayed over UDP or a UNIX socket is not an IP client: its address is the connection's own.
        guard family == 1 || family == 2, transport == 1 else { return .header(length: length, client: nil) }
        // "the address block ... INET: 12 bytes (4 + 4 + 2 + 2) ... INET6: 36 bytes (16 + 16 + 2 + 2)"; TLVs may follow.
        let addressLength = family == 1 ? 4 : 16
        guard length - 16 >= 2 * addressLength + 4 else { return .invalid(reason: "a version 2 header's address block is too short") }
        let source = Array(bytes[16..<(16 + addressLength)])
        let portOffset = 16 + 2 * addressLength
        let sourcePort = UInt16(bytes[portOffset]) << 8 | UInt16(bytes[portOffset + 1])
        return .header(length: length, client: client(source, port: sourcePort))
    }

    /// The client of `bytes` (4 or 16), written by `inet_ntop`.
    private static func client(_ bytes: [UInt8], port: UInt16) -> ProxiedClient {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ProxiedClient(address: address, bytes: bytes, port: port)
    }
}
