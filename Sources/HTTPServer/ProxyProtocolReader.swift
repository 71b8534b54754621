import LibEvent

#if canImport(Glibc)
import Glibc
#endif

/// Reads the PROXY protocol header off the front of one connection from a trusted proxy, straight from its socket,
/// while the connection's bufferevent does not read (on HTTPS, before the TLS handshake, which the header precedes).
/// It takes from the socket only bytes of the header: what it peeks is taken only as far as the header reaches, so
/// the request (or the TLS client hello) after it stays in the socket for the bufferevent. Used only on its loop's
/// thread; its connection owns it and frees it (`stop`).
final class ProxyProtocolReader {
    /// The connection told of the header.
    private unowned let connection: ConnectionState
    private let descriptor: Int32
    /// The read watch on the socket.
    private var event: Event?
    /// The bytes of the header taken so far.
    private var taken: [UInt8] = []

    /// Whether a connection from `peer` must start with a header: its address is in one of `ranges`.
    static func isTrusted(_ peer: UnsafePointer<sockaddr>?, ranges: [AddressRange]) -> Bool {
        guard !ranges.isEmpty, let bytes = peer.flatMap(AddressRange.bytes) else { return false }
        return ranges.contains { $0.contains(address: bytes) }
    }

    init(connection: ConnectionState, descriptor: Int32) {
        self.connection = connection
        self.descriptor = descriptor
    }

    /// Starts watching the socket on `base`; false when libevent could not.
    func start(base: EventBase) -> Bool {
        event = Event(
            base: base,
            descriptor: descriptor,
            kinds: [.read, .persist],
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<ProxyProtocolReader>.fromOpaque(argument).takeUnretainedValue().readable()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        guard let event, event.add() else {
            stop()
            return false
        }
        return true
    }

    /// Stops watching the socket; safe to call twice.
    func stop() {
        guard let event else { return }
        event.free()
        self.event = nil
    }

    /// The socket has bytes: take those of the header, and tell the connection once it is whole or refused.
    private func readable() {
        var peeked = [UInt8](repeating: 0, count: ProxyProtocolHeader.maximumLength - taken.count)
        let count = recv(descriptor, &peeked, peeked.count, Int32(MSG_PEEK))
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
        guard count > 0 else {
            // The peer closed, or the socket failed, before a whole header.
            finish(.invalid(reason: "the connection ended before its header"))
            return
        }
        let reading = ProxyProtocolHeader.read(taken + peeked[0..<count])
        // Bytes of the header only: all of them while it is incomplete (it goes on past them), up to its end once whole.
        let headerBytes: Int
        switch reading {
        case .invalid:
            finish(reading)
            return
        case .incomplete:
            headerBytes = count
        case .header(let length, _):
            headerBytes = length - taken.count
        }
        var consumed = [UInt8](repeating: 0, count: headerBytes)
        guard recv(descriptor, &consumed, headerBytes, 0) == headerBytes else {
            finish(.invalid(reason: "the socket failed while the header was read"))
            return
        }
        taken += consumed
        if case .header = reading { finish(reading) }
    }

    /// The header is whole or refused: no more watching, and the connection decides.
    private func finish(_ reading: ProxyProtocolHeader.Reading) {
        stop()
        connection.proxyHeaderRead(reading)
    }
}
