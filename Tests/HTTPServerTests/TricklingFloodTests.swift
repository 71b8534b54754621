import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// Issue 43 item 2: connections that trickle a request, a byte every so often from five addresses, fill the
/// connection cap; normal probes from another address must still be answered (the oldest incomplete requests make
/// way), and a trickler never outlives the whole-request deadline.
@Suite(.serialized) struct TricklingFloodTests {
    @Test func probesAreAnsweredWhileTricklersFillTheCap() throws {
        let handler = RecordingHandler()
        let server = try TestServer(threads: 1, maximumConnections: 50, readTimeoutSeconds: 4, handler: handler)
        let port = server.server.httpPort!
        let request = Array("GET /trickle HTTP/1.1\r\nHost: x\r\nX-Padding: ".utf8)
        var tricklers: [RawConnection] = []
        for address in 3...7 {
            for _ in 0..<10 { tricklers.append(try RawConnection(port: port, from: "127.0.0.\(address)")) }
        }
        var answered = 0
        for round in 0..<20 {
            // Every trickler sends its next byte; the cap stays full of incomplete requests.
            for trickler in tricklers { trickler.send([request[min(round, request.count - 1)]]) }
            // And tricklers reconnect as fast as they are closed, to keep the pressure on.
            for index in tricklers.indices where tricklers[index].isClosedByServer(within: 0) {
                tricklers[index] = try RawConnection(port: port, from: "127.0.0.\(3 + index % 5)")
                tricklers[index].send(Array(request.prefix(round + 1)))
            }
            let probe = try RawConnection(port: port, from: "127.0.0.2")
            probe.send("GET /probe-\(round) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let reply = String(decoding: probe.receiveUntilClosed(within: 2).bytes, as: UTF8.self)
            if reply.hasPrefix("HTTP/1.1 200 OK\r\n") { answered += 1 }
            usleep(50_000)
        }
        #expect(answered == 20, "\(answered) of 20 probes answered")
        // No trickle ever became a request.
        #expect(handler.handled.allSatisfy { $0.hasPrefix("/probe-") }, "\(handler.handled)")
    }
}
