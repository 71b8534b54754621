import Foundation
import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for raw-byte tests: send anything, read what comes back until the server
/// closes or a deadline passes. Closed on deinit.
public final class RawConnection {
    public private(set) var descriptor: Int32

    /// Connects to 127.0.0.1:`port`, from the loopback address `source` when one is given (127.0.0.2 is another
    /// client address of this machine); throws when the connection is refused.
    public init(port: Int, from source: String? = nil) throws {
        descriptor = try LoopbackSocket.connect(port: port, from: source)
    }

    deinit {
        close()
    }

    /// Closes the socket; idempotent.
    public func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// Sends all of `bytes`; false when the server already closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return sent == bytes.count
    }

    /// Sends the UTF-8 bytes of `text`.
    @discardableResult
    public func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Everything the server sends until it closes the connection or `seconds` pass (at least one look, even
    /// with no time left), and whether it closed.
    public func receiveUntilClosed(within seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let closed = receive(into: &received, within: seconds) { _ in false }
        return (received, closed)
    }

    /// What the server sends until the bytes received end with `terminator`, it closes, or `seconds` pass.
    public func receive(within seconds: Double, until terminator: String) -> [UInt8] {
        let end = Array(terminator.utf8)
        var received: [UInt8] = []
        _ = receive(into: &received, within: seconds) { $0.count >= end.count && Array($0.suffix(end.count)) == end }
        return received
    }

    /// Whether the server has closed the connection (a read returns end of file or a reset) within `seconds`.
    public func isClosedByServer(within seconds: Double) -> Bool {
        receiveUntilClosed(within: seconds).closed
    }

    /// Reads into `received` until `isComplete` holds, the server closes (true) or `seconds` pass.
    private func receive(into received: inout [UInt8], within seconds: Double, isComplete: ([UInt8]) -> Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, remaining) > 0 else { continue }
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 { return true }
            received += chunk[0..<count]
            if isComplete(received) { return false }
        } while Date() < deadline
        return false
    }
}
