import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for raw-byte tests: send anything, read what comes back until the server
/// closes or a deadline passes. Closed on deinit.
final class RawConnection {
    private(set) var descriptor: Int32

    /// Connects to 127.0.0.1:`port`; throws when the connection is refused.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TransportFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(descriptor)
            throw TransportFailure("connect to 127.0.0.1:\(port): \(reason)")
        }
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
