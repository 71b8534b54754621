import Foundation
import HTTPServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 41: behind a TCP load balancer, connections from its address ranges start with a PROXY protocol header that
/// names the client; the server takes it off, hands the client to the handler and counts the connection against it.
@Suite("PROXY protocol on a listener")
struct ProxyProtocolLoopbackTests {
    static let loopback = [AddressRange("127.0.0.1/32")!]

    static func request(_ path: String = "/x") -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    }

    /// The echoed `remote` of a whole answer, nil when there is none.
    static func remote(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200 OK\r\n"), let start = text.range(of: "\"remote\":\"") else { return nil }
        return String(text[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test func version1AndVersion2NameTheClient() throws {
        let server = try TestServer(proxyProtocolFrom: Self.loopback)
        let port = server.server.httpPort!
        let version1 = exchangeRaw(port: port, Array(("PROXY TCP4 203.0.113.7 10.0.0.1 51234 443\r\n" + Self.request()).utf8))
        #expect(version1.flatMap(Self.remote) == "203.0.113.7", "\(String(decoding: version1 ?? [], as: UTF8.self))")
        let version2 = ProxyProtocolHeaderTests.version2(family: 0x21, ProxyProtocolHeaderTests.ipv6Body) + Array(Self.request().utf8)
        #expect(exchangeRaw(port: port, version2).flatMap(Self.remote) == "2001:db8::7")
        // A balancer's health check (LOCAL) is its own client.
        let local = ProxyProtocolHeaderTests.version2(command: 0x20, family: 0x00, []) + Array(Self.request().utf8)
        #expect(exchangeRaw(port: port, local).flatMap(Self.remote) == "127.0.0.1")
    }

    /// The header may arrive in pieces, as TCP delivers it.
    @Test func aHeaderInPiecesIsWaitedFor() throws {
        let server = try TestServer(proxyProtocolFrom: Self.loopback)
        let connection = try RawConnection(port: server.server.httpPort!)
        for byte in Array("PROXY TCP4 198.51.100.9 10.0.0.1 4000 443\r\n".utf8) {
            #expect(connection.send([byte]))
            usleep(2_000)
        }
        #expect(connection.send(Self.request()))
        #expect(Self.remote(connection.receiveUntilClosed(within: 3).bytes) == "198.51.100.9")
    }

    /// "The receiver MUST not try to guess whether the protocol header is present": from a trusted range, a request
    /// without a header, garbage, or a header that never ends is closed without an answer.
    @Test func aTrustedPeerWithoutAValidHeaderIsClosedUnanswered() throws {
        let server = try TestServer(readTimeoutSeconds: 1, proxyProtocolFrom: Self.loopback)
        let port = server.server.httpPort!
        #expect(exchangeRaw(port: port, Array(Self.request().utf8)) == [])
        #expect(exchangeRaw(port: port, Array("PROXY TCP4 203.0.113.7 10.0.0.1 080 443\r\n".utf8) + Array(Self.request().utf8)) == [])
        let endless = try RawConnection(port: port)
        #expect(endless.send("PROXY TCP4 203.0.113.7"))
        let started = Date()
        let silent = endless.receiveUntilClosed(within: 4)
        #expect(silent.closed && silent.bytes.isEmpty)
        #expect(Date().timeIntervalSince(started) < 3, "closed at the read deadline")
        // The server goes on serving.
        let next = exchangeRaw(port: port, Array(("PROXY TCP4 203.0.113.8 10.0.0.1 1 443\r\n" + Self.request()).utf8))
        #expect(next.flatMap(Self.remote) == "203.0.113.8")
    }

    /// A peer outside the ranges sends no header and is its own client; a header it sends is not believed (it reaches
    /// the HTTP parser as a bad request line).
    @Test func aPeerOutsideTheRangesIsItsOwnClient() throws {
        let server = try TestServer(proxyProtocolFrom: [AddressRange("10.0.0.0/8")!])
        let port = server.server.httpPort!
        #expect(exchangeRaw(port: port, Array(Self.request().utf8)).flatMap(Self.remote) == "127.0.0.1")
        let forged = exchangeRaw(port: port, Array(("PROXY TCP4 203.0.113.7 10.0.0.1 51234 443\r\n" + Self.request()).utf8)) ?? []
        #expect(String(decoding: forged, as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
    }

    /// The per-address cap counts the client each header names, not the balancer that carries them all.
    @Test func thePerAddressCapCountsTheNamedClient() throws {
        let server = try TestServer(threads: 1, maximumConnectionsPerAddress: 1, proxyProtocolFrom: Self.loopback)
        let port = server.server.httpPort!
        let first = try RawConnection(port: port)
        #expect(first.send("PROXY TCP4 203.0.113.1 10.0.0.1 1 443\r\nGET /slow HTTP/1.1\r\nHost: x\r\n"))
        usleep(100_000)
        let other = exchangeRaw(port: port, Array(("PROXY TCP4 203.0.113.2 10.0.0.1 2 443\r\n" + Self.request()).utf8))
        #expect(other.flatMap(Self.remote) == "203.0.113.2", "another client of the same balancer takes nothing of the first's")
        #expect(!first.isClosedByServer(within: 0.2))
        let same = exchangeRaw(port: port, Array(("PROXY TCP4 203.0.113.1 10.0.0.1 3 443\r\n" + Self.request()).utf8))
        #expect(same.flatMap(Self.remote) == "203.0.113.1")
        #expect(first.isClosedByServer(within: 1), "the same client's oldest incomplete request made way")
    }

    /// On HTTPS the header comes before the TLS handshake: a real TLS client (Python's ssl) after a version 2 header,
    /// and curl's own `--haproxy-protocol` (version 1).
    @Test func onHTTPSTheHeaderPrecedesTheHandshake() throws {
        let server = try TestServer(proxyProtocolFrom: Self.loopback)
        let port = server.server.httpsPort!
        let header = ProxyProtocolHeaderTests.version2(ProxyProtocolHeaderTests.ipv4Body)
        let script = """
            import socket, ssl, sys
            raw = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
            raw.sendall(bytes.fromhex(sys.argv[2]))
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            secure = context.wrap_socket(raw)
            secure.sendall(b"GET /tls HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
            answer = b""
            while chunk := secure.recv(4096):
                answer += chunk
            sys.stdout.write(answer.decode())
            """
        let hex = header.map { String(format: "%02x", $0) }.joined()
        let python = try run("/usr/bin/python3", ["-c", script, String(port), hex])
        #expect(python.status == 0, "\(python.errorOutput)")
        #expect(Self.remote(Array(python.output.utf8)) == "203.0.113.7")
        #expect(python.output.contains("\"secure\":true"))
        let viaCurl = try curl(["--haproxy-protocol", "https://127.0.0.1:\(port)/curl"])
        #expect(viaCurl.status == 0 && viaCurl.output.contains("\"remote\":\"127.0.0.1\""), "\(viaCurl.errorOutput)")
        // Without the header, the TLS handshake never starts.
        let refused = try curl(["https://127.0.0.1:\(port)/plain"])
        #expect(refused.status != 0)
    }
}
