import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for raw-byte tests: send anything, read what comes back until the server
/// closes or a deadline passes. Closed on deinit.
final class RawConnection {
    private(set) var descriptor: Int32

    /// Connects to 127.0.0.1:`port`; throws when the connection is refused.
    init(port: Int) throws {
        descriptor = try LoopbackSocket.connect(port: port)
    }

    deinit {
        close()
    }

    /// Closes the socket; idempotent.
    func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// Sends all of `bytes`; false when the server already closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return sent == bytes.count
    }

    /// Everything the server sends until it closes the connection or `seconds` pass (at least one look, even
    /// with no time left), and whether it closed.
    func receiveUntilClosed(within seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, remaining) > 0 else { continue }
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return (received, true) }
            received += chunk[0..<count]
        } while Date() < deadline
        return (received, false)
    }

    /// Whether the server has closed the connection (a read returns end of file or a reset) within `seconds`.
    func isClosedByServer(within seconds: Double) -> Bool {
        receiveUntilClosed(within: seconds).closed
    }
}
