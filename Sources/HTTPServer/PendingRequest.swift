import LibEvent

/// A request handed to the worker pool, until its response is written back on the loop that owns the connection.
///
/// `@unchecked Sendable`: a worker only carries it to the loop's mailbox; its members are read and written on the
/// loop's thread alone. evhttp frees the request when the connection closes; the connection's close marks the pending
/// request cancelled first, so its response is then dropped and the freed request never touched.
final class PendingRequest: @unchecked Sendable {
    let request: EvhttpRequest
    let isHead: Bool
    let listener: EventLoopListener
    let connection: ConnectionState
    /// Set when the connection closed before the response came back.
    var isCancelled = false

    init(request: EvhttpRequest, isHead: Bool, listener: EventLoopListener, connection: ConnectionState) {
        self.request = request
        self.isHead = isHead
        self.listener = listener
        self.connection = connection
    }
}
