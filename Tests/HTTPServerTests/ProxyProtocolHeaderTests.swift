import HTTPServer
import Testing

/// The PROXY protocol header reader (HAProxy's proxy-protocol.txt, versions 1 and 2): every header it accepts, every
/// prefix it waits on, and every refusal the specification asks for.
@Suite("PROXY protocol header")
struct ProxyProtocolHeaderTests {
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    /// A version 2 header: signature, version/command, family/protocol, then `body` with its length.
    static func version2(command: UInt8 = 0x21, family: UInt8 = 0x11, _ body: [UInt8]) -> [UInt8] {
        signature + [command, family, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static let ipv4Body: [UInt8] = [203, 0, 113, 7, 10, 0, 0, 1, 0xC8, 0x22, 0x01, 0xBB]
    static let ipv6Body: [UInt8] =
        [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [7] + [0xFD] + [UInt8](repeating: 0, count: 14) + [1] + [
            0x30, 0x39, 0x01, 0xBB,
        ]

    static func client(_ reading: ProxyProtocolHeader.Reading) -> String? {
        guard case .header(_, let client) = reading else { return nil }
        return client.map { "\($0.address) \($0.port)" }
    }

    static func length(_ reading: ProxyProtocolHeader.Reading) -> Int? {
        guard case .header(let length, _) = reading else { return nil }
        return length
    }

    @Test func version1NamesTheClientOfTCP4AndTCP6() {
        let line = Array("PROXY TCP4 203.0.113.7 10.0.0.1 51234 443\r\n".utf8)
        let reading = ProxyProtocolHeader.read(line + Array("GET / HTTP/1.1".utf8))
        #expect(Self.length(reading) == line.count && Self.client(reading) == "203.0.113.7 51234")
        guard case .header(_, let client) = reading else { return }
        #expect(client?.bytes == [203, 0, 113, 7])
        #expect(Self.client(ProxyProtocolHeader.read(Array("PROXY TCP6 2001:db8::7 fd00::1 12345 443\r\n".utf8))) == "2001:db8::7 12345")
        // The port range's ends.
        #expect(Self.client(ProxyProtocolHeader.read(Array("PROXY TCP4 192.0.2.1 192.0.2.2 0 65535\r\n".utf8))) == "192.0.2.1 0")
    }

    /// "UNKNOWN": the receiver ignores the rest of the line and uses the connection's own endpoints.
    @Test func version1UnknownLeavesTheConnectionItsOwnClient() {
        #expect(ProxyProtocolHeader.read(Array("PROXY UNKNOWN\r\n".utf8)) == .header(length: 15, client: nil))
        let long = Array("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n".utf8)
        #expect(ProxyProtocolHeader.read(long) == .header(length: long.count, client: nil))
    }

    @Test func everyPrefixOfAHeaderWaitsForMore() {
        let version1 = Array("PROXY TCP4 203.0.113.7 10.0.0.1 51234 443\r\n".utf8)
        let version2 = Self.version2(Self.ipv4Body)
        for header in [version1, version2] {
            for length in 0..<header.count {
                #expect(ProxyProtocolHeader.read(header.prefix(length)) == .incomplete, "\(length) bytes")
            }
            if case .header = ProxyProtocolHeader.read(header) {} else { Issue.record("the whole header is read") }
        }
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\n",  // no header at all: never guessed
        "proxy TCP4 203.0.113.7 10.0.0.1 1 2\r\n",  // the word is upper-case
        "PROXY  TCP4 203.0.113.7 10.0.0.1 1 2\r\n",  // two spaces
        "PROXY TCP5 203.0.113.7 10.0.0.1 1 2\r\n",  // an unknown protocol
        "PROXY TCP4 203.0.113.7 10.0.0.1 1\r\n",  // a field missing
        "PROXY TCP4 203.0.113.7 10.0.0.1 1 2 3\r\n",  // a field too many
        "PROXY TCP4 2001:db8::7 10.0.0.1 1 2\r\n",  // IPv6 under TCP4
        "PROXY TCP6 203.0.113.7 fd00::1 1 2\r\n",  // IPv4 under TCP6
        "PROXY TCP4 203.0.113.256 10.0.0.1 1 2\r\n",  // not an address
        "PROXY TCP4 203.0.113.7 10.0.0.1 65536 2\r\n",  // a port past 65535
        "PROXY TCP4 203.0.113.7 10.0.0.1 080 2\r\n",  // a leading zero
        "PROXY TCP4 203.0.113.7 10.0.0.1 -1 2\r\n",  // a sign
        "PROXY TCP4 203.0.113.7 10.0.0.1 1 2\n",  // LF without CR
    ])
    func version1RefusesWhatTheSpecificationDoesNotAllow(text: String) {
        guard case .invalid = ProxyProtocolHeader.read(Array(text.utf8)) else {
            Issue.record("accepted \(text.debugDescription)")
            return
        }
    }

    /// "a receiver may reject an incomplete line which does not contain the CRLF sequence in the first 107 characters".
    @Test func version1LongerThan107BytesIsRefused() {
        let withoutEnd = Array("PROXY UNKNOWN ".utf8) + [UInt8](repeating: 0x61, count: 93)
        #expect(withoutEnd.count == 107)
        guard case .invalid = ProxyProtocolHeader.read(withoutEnd) else {
            Issue.record("107 bytes without CRLF")
            return
        }
        #expect(ProxyProtocolHeader.read(withoutEnd.prefix(106)) == .incomplete)
        let tooLong = Array("PROXY UNKNOWN ".utf8) + [UInt8](repeating: 0x61, count: 92) + [0x0D, 0x0A]
        guard case .invalid = ProxyProtocolHeader.read(tooLong) else {
            Issue.record("108 bytes with CRLF")
            return
        }
        let longest = Array("PROXY UNKNOWN ".utf8) + [UInt8](repeating: 0x61, count: 91) + [0x0D, 0x0A]
        #expect(ProxyProtocolHeader.read(longest) == .header(length: 107, client: nil))
    }

    @Test func version2NamesTheClientOfIPv4AndIPv6AndSkipsTLVs() {
        let ipv4 = Self.version2(Self.ipv4Body)
        let reading = ProxyProtocolHeader.read(ipv4 + Array("GET".utf8))
        #expect(Self.length(reading) == 28 && Self.client(reading) == "203.0.113.7 51234")
        // A TLV of AWS's kind (type 0xEA, an endpoint ID) after the addresses is skipped with them.
        let tlv: [UInt8] = [0xEA, 0x00, 0x05, 0x01] + Array("vpce".utf8)
        let ipv6 = Self.version2(family: 0x21, Self.ipv6Body + tlv)
        guard case .header(let length, let client) = ProxyProtocolHeader.read(ipv6) else {
            Issue.record("IPv6 header")
            return
        }
        #expect(length == 16 + 36 + tlv.count)
        #expect(client?.address == "2001:db8::7" && client?.port == 12345)
    }

    /// LOCAL (a health check), UNSPEC, UNIX and datagram relays: the connection's own peer is the client.
    @Test func version2LocalAndNonIPFamiliesLeaveTheConnectionItsOwnClient() {
        #expect(ProxyProtocolHeader.read(Self.version2(command: 0x20, family: 0x00, [])) == .header(length: 16, client: nil))
        #expect(ProxyProtocolHeader.read(Self.version2(command: 0x20, family: 0x11, Self.ipv4Body)) == .header(length: 28, client: nil))
        #expect(ProxyProtocolHeader.read(Self.version2(family: 0x00, [])) == .header(length: 16, client: nil))
        #expect(ProxyProtocolHeader.read(Self.version2(family: 0x31, [UInt8](repeating: 0, count: 216))) == .header(length: 232, client: nil))
        #expect(ProxyProtocolHeader.read(Self.version2(family: 0x12, Self.ipv4Body)) == .header(length: 28, client: nil))
    }

    @Test(arguments: [
        ("version 1 in the binary header", version2(command: 0x11, ipv4Body)),
        ("an unassigned command", version2(command: 0x22, ipv4Body)),
        ("an unknown family", version2(family: 0x41, ipv4Body)),
        ("an unknown protocol", version2(family: 0x13, ipv4Body)),
        ("an IPv4 address block too short", version2(Array(ipv4Body.prefix(11)))),
        ("an IPv6 address block too short", version2(family: 0x21, ipv4Body)),
        ("a signature with one byte changed", [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x55, 0x0A, 0x21, 0x11, 0, 12]),
    ])
    func version2RefusesWhatTheSpecificationDoesNotAllow(name: String, header: [UInt8]) {
        guard case .invalid = ProxyProtocolHeader.read(header) else {
            Issue.record("accepted \(name)")
            return
        }
    }

    /// A length beyond 1,024 bytes is refused as soon as it is read, never buffered.
    @Test func version2LongerThanTheBoundIsRefusedFromItsLength() {
        let announced = Self.signature + [0x21, 0x11, 0x03, 0xF1]  // 16 + 1009 bytes
        guard case .invalid = ProxyProtocolHeader.read(announced) else {
            Issue.record("a 1,025-byte header")
            return
        }
        let atTheBound = Self.version2(Self.ipv4Body + [UInt8](repeating: 0, count: 1008 - 12))
        let reading = ProxyProtocolHeader.read(atTheBound)
        #expect(Self.length(reading) == 1024 && Self.client(reading) == "203.0.113.7 51234")
    }
}
