import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// Issue 43 item 3: keyless connections sending large bodies to the admin listener (the key is checked once a request
/// is whole) made it hold 16 MiB each. With `maximumArrivingBytes`, the connection whose bytes take the loop over the
/// bound is closed before its body is read whole; the others, and later requests, go on.
@Suite(.serialized) struct ArrivingBytesTests {
    static func start(bound: Int?) throws -> (HTTPServer, Int) {
        var configuration = HTTPServerConfiguration(
            httpAddress: "127.0.0.1:0",
            threads: 1,
            workers: 2,
            maximumBodySize: 1 << 20,
            readTimeoutSeconds: 10,
            log: .discarding
        )
        configuration.maximumArrivingBytes = bound
        let server = try HTTPServer(configuration: configuration, handler: EchoHandler())
        server.start()
        return (server, server.httpPort!)
    }

    /// Headers announcing a 1 MiB body, and `count` bytes of it.
    static func partialUpload(_ count: Int) -> [UInt8] {
        Array("POST /import HTTP/1.1\r\nHost: x\r\nContent-Length: \(1 << 20)\r\n\r\n".utf8) + [UInt8](repeating: 0x61, count: count)
    }

    @Test func theConnectionThatGoesOverTheBoundIsClosedAndTheRestGoOn() throws {
        let (server, port) = try Self.start(bound: 1_500_000)
        defer { server.stop() }
        let first = try RawConnection(port: port)
        let second = try RawConnection(port: port)
        #expect(first.send(Self.partialUpload(700_000)))
        usleep(200_000)
        #expect(second.send(Self.partialUpload(700_000)))
        usleep(200_000)
        #expect(!first.isClosedByServer(within: 0.2) && !second.isClosedByServer(within: 0.2), "1.4 MB held: under the bound")
        let third = try RawConnection(port: port)
        _ = third.send(Self.partialUpload(700_000))
        #expect(third.isClosedByServer(within: 2), "the one that went over is closed before its body is whole")
        #expect(!first.isClosedByServer(within: 0.2), "the others are not")

        // A small request on a new connection is answered meanwhile.
        let probe = try RawConnection(port: port)
        _ = probe.send("GET /probe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: probe.receiveUntilClosed(within: 2).bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))

        // Once the first two go, their bytes are given back: a whole 1 MiB request is read and answered.
        first.close()
        second.close()
        usleep(300_000)
        let whole = try RawConnection(port: port)
        _ = whole.send(Self.partialUpload(1 << 20))
        #expect(String(decoding: whole.receive(within: 5, until: "\r\n\r\n"), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func withoutABoundNothingIsClosed() throws {
        let (server, port) = try Self.start(bound: nil)
        defer { server.stop() }
        let connections = try (0..<3).map { _ in try RawConnection(port: port) }
        for connection in connections { _ = connection.send(Self.partialUpload(700_000)) }
        usleep(300_000)
        #expect(connections.allSatisfy { !$0.isClosedByServer(within: 0.2) })
    }
}
