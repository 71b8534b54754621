import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

extension PostgresConnection {
    /// The connection's socket, which a listener waits on.
    var socket: Int32 { PQsocket(handle) }

    /// Waits up to `timeout` for notifications (`LISTEN`), as libpq's documentation of `PQnotifies` says: wait for
    /// the socket, read what arrived, then take the notifications it held.
    /// - Returns: the channels notified (empty when nothing came in time).
    /// - Throws: `connectionFailed` when the server closed the connection or it broke.
    func awaitNotifications(for timeout: Duration) throws(PostgresError) -> [String] {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Self.pollMilliseconds(timeout))
        guard ready != 0 else { return [] }
        guard ready > 0 || errno == EINTR, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError.failure("listen", result: nil, connection: handle)
        }
        var channels: [String] = []
        while let notification = PQnotifies(handle) {
            channels.append(String(cString: notification.pointee.relname))
            PQfreemem(notification)
        }
        return channels
    }
}
