import CryptoCore
import LibEvent

#if canImport(Glibc)
import Glibc
#endif

/// Bookkeeping for one accepted connection, used only on its event loop's thread.
///
/// It counts the connection against the cap, hooks its close, and watches its output buffer:
/// anything libevent writes on its own (rather than inside `EventLoopListener.send`) is either
/// `100 Continue`, which passes, or one of libevent's HTML error pages (400, 413, 501, ...),
/// which is replaced by a JSON error with `Connection: close`.
///
/// It also enforces a whole-request deadline. libevent's read timeout restarts with every byte read, so a client
/// trickling one byte at a time could hold its connection (and a place under the cap) for ever. A request must
/// therefore arrive in full within the read timeout of the connection opening, and each next one within the write
/// and read timeouts of the previous answer being queued; otherwise the connection is closed.
///
/// And it watches the input for NUL bytes, which libevent would silently cut header values at (RFC 9110 §5.5: reject
/// or replace); the listener refuses every request of a connection that sent one (no JSON body holds a raw NUL either).
///
/// It applies the connection caps when the connection is attached: over the per-address cap it is closed; over the
/// global cap the loop's connection idle the longest is closed to make room, or this one when none is idle. And it
/// keeps the connection in its loop's idle list while no request is in progress: from when it opens or its last answer
/// has been written out until its next byte arrives.
final class ConnectionState {
    /// The listener that accepted the connection; it outlives every connection it accepted.
    unowned let listener: EventLoopListener
    /// The connection's bufferevent (TLS or plain), owned by libevent's evhttp connection.
    let bufferEvent: BufferEvent
    /// Set when no TLS session could be made: the connection is closed as soon as it is attached.
    let isRefused: Bool
    /// The output-buffer watch, removed when the connection goes away.
    private var outputWatch: EventBuffer.Watch?
    /// True while this class edits the output buffer itself.
    private var isRewriting = false
    /// True once an error page was replaced: the rest of libevent's page is dropped.
    private var isDiscardingOutput = false
    /// The evhttp connection, once attached.
    private var connection: EvhttpConnection?
    /// The whole-request deadline timer, once attached.
    private var deadline: Event?
    /// The input watch, removed when the connection goes away.
    private var inputWatch: EventBuffer.Watch?
    /// The bytes of its request still arriving, counted in its loop's `arrivingBytes` (on a listener with
    /// `maximumArrivingBytes`); given back when the request is whole, answered or the connection closes.
    var arrivingBytes = 0
    /// Set once its bytes took the loop over `maximumArrivingBytes`: it closes on the loop's next turn, unless its
    /// request was whole and answered first (`EventLoop.requestEnded` clears it).
    var isOverArrivingBound = false
    /// True once the client sent a NUL byte: the listener then refuses its requests.
    private(set) var hasReceivedNUL = false
    /// The client address it is counted against, once admitted under the per-address cap, with that address's
    /// connections on the loop.
    private var address: AddressConnections?
    /// Whether the connection is a trusted proxy's (`proxyProtocolFrom`) whose PROXY protocol header has not been read:
    /// its bufferevent does not read meanwhile, and it is counted against no address yet.
    private var awaitsProxyHeader = false
    /// The reader of that header, while it reads.
    private var proxyHeader: ProxyProtocolReader?
    /// The client a trusted proxy's PROXY protocol header named (its address as `inet_ntop` writes it); nil for a
    /// connection that is its own client.
    private(set) var proxiedClient: String?
    /// Set when the connection must close on the loop's next turn (a refused PROXY protocol header).
    private var isClosingSoon = false

    /// Whether this TLS connection's handshake outcome has been counted (plain connections have none to count).
    private var isHandshakeCounted: Bool
    /// Whether the deadline was armed for the answer being queued: evhttp adds an answer to the output line by line,
    /// and arming it once (at the first line) instead of at every line saves an `event_add` per header. Cleared when
    /// request bytes arrive and when the output is written out, so that each answer arms it again.
    private var isAnswerDeadlineArmed = false
    /// The request being handled on the worker pool, if any (evhttp handles one request of a connection at a time).
    private var pending: PendingRequest?
    /// Its places in the loop's lists of idle connections, all and of its address (maintained there).
    var idleLinks = IdleLinks()
    var addressIdleLinks = IdleLinks()
    /// Its places in the loop's lists of connections whose request is still arriving, all and of its address.
    var incompleteLinks = IdleLinks()
    var addressIncompleteLinks = IdleLinks()

    init(listener: EventLoopListener, bufferEvent: BufferEvent, isRefused: Bool) {
        self.listener = listener
        self.bufferEvent = bufferEvent
        self.isRefused = isRefused
        isHandshakeCounted = !listener.isSecure || isRefused
    }

    /// Counts the connection, watches its output and schedules `attach` for right after evhttp
    /// has wrapped the bufferevent in a connection (still before any of its bytes are read).
    func register() {
        _ = listener.loop.connections.opened()
        outputWatch = bufferEvent.output?.addWatch(
            { buffer, information, argument in
                guard let buffer, let information, let argument else { return }
                Unmanaged<ConnectionState>.fromOpaque(argument).takeUnretainedValue()
                    .outputChanged(EventBuffer(buffer), added: information.pointee.added, deleted: information.pointee.deleted)
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        inputWatch = bufferEvent.input?.addWatch(
            { buffer, information, argument in
                guard let buffer, let information, let argument else { return }
                Unmanaged<ConnectionState>.fromOpaque(argument).takeUnretainedValue().inputChanged(
                    EventBuffer(buffer),
                    added: information.pointee.added
                )
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        bufferEvent.retain()
        let scheduled = listener.loop.base.once(
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<ConnectionState>.fromOpaque(argument).takeRetainedValue().attach()
            },
            argument: Unmanaged.passRetained(self).toOpaque()
        )
        if !scheduled {
            Unmanaged.passUnretained(self).release()
            detach()
            bufferEvent.release()
        }
    }

    /// Finds the evhttp connection (the bufferevent's callback argument), then either hooks its close,
    /// or closes it when it is refused or over the cap.
    private func attach() {
        guard let connection = bufferEvent.owningConnection else {
            // evhttp already gave the connection up; our reference is the last one.
            detach()
            bufferEvent.release()
            return
        }
        bufferEvent.release()
        let configuration = listener.configuration
        awaitsProxyHeader = ProxyProtocolReader.isTrusted(connection.peer, ranges: configuration.proxyProtocolFrom)
        guard !isRefused, admit(connection, configuration: configuration) else {
            detach()
            connection.free()
            return
        }
        bufferEvent.setTimeouts(
            read: timeval(tv_sec: configuration.readTimeoutSeconds, tv_usec: 0),
            write: timeval(tv_sec: configuration.writeTimeoutSeconds, tv_usec: 0)
        )
        connection.onClose(
            { _, argument in
                guard let argument else { return }
                Unmanaged<ConnectionState>.fromOpaque(argument).takeRetainedValue().detach()
            },
            argument: Unmanaged.passRetained(self).toOpaque()
        )
        self.connection = connection
        listener.connectionStates[bufferEvent] = self
        deadline = Event(
            base: listener.loop.base,
            { _, _, argument in
                guard let argument else { return }
                Unmanaged<ConnectionState>.fromOpaque(argument).takeUnretainedValue().deadlinePassed()
            },
            argument: Unmanaged.passUnretained(self).toOpaque()
        )
        armDeadline(seconds: configuration.readTimeoutSeconds)
        if awaitsProxyHeader {
            readProxyHeader()
        } else if bufferEvent.input?.count == 0, let address {
            listener.loop.becameIdle(self, address: address)
        }
    }

    /// Counts the connection against its address's cap (a trusted proxy's connection: once its header names the
    /// client) and makes room under the global cap; false when it must be closed instead.
    private func admit(_ connection: EvhttpConnection, configuration: HTTPServerConfiguration) -> Bool {
        if !awaitsProxyHeader {
            guard let peer = connection.peer.flatMap(PeerAddress.init), admit(peer) else { return false }
        }
        let loop = listener.loop
        guard loop.connections.current > configuration.maximumConnections else { return true }
        // Under pressure: the connection idle the longest, else the oldest incomplete request (trickling clients go
        // before anyone whose request is whole and being answered, who is never closed for room).
        let madeRoom = loop.closeIdleConnections(upTo: 1) == 1 || loop.closeOldestIncompleteConnection()
        loop.reports.note(
            "maximumConnections",
            madeRoom
                ? "\(configuration.maximumConnections) connections open (limits.maximumConnections): closed the one idle the longest, or else the oldest incomplete request, for a new one"
                : "\(configuration.maximumConnections) connections open (limits.maximumConnections), none idle or incomplete: closed a new connection",
            now: ThrottledLog.now
        )
        return madeRoom
    }

    /// Counts the connection against `peer`'s cap, closing that address's connection idle the longest (or else its
    /// oldest incomplete request) to make room; false when there is none and this one must be closed.
    private func admit(_ peer: PeerAddress) -> Bool {
        let loop = listener.loop
        let limit = listener.configuration.maximumConnectionsPerAddress
        if !loop.connections.admit(peer, limit: limit) {
            // The address's own connection idle the longest makes way (a person behind the same NAT as a flood still
            // gets in), else its oldest incomplete request (a trickling one); with neither, the new one is closed.
            let madeRoom =
                (loop.closeIdleConnections(upTo: 1, of: peer) == 1 || loop.closeOldestIncompleteConnection(of: peer))
                && loop.connections.admit(peer, limit: limit)
            loop.reports.note(
                "perAddress",
                "a client address holds \(limit) connections (limits.maximumConnectionsPerAddress): "
                    + (madeRoom
                        ? "closed its connection idle the longest, or else its oldest incomplete request, for a new one"
                        : "none idle or incomplete, closed a new one"),
                now: ThrottledLog.now
            )
            guard madeRoom else { return false }
        }
        address = loop.joined(peer)
        return true
    }

    /// Reads the PROXY protocol header from the socket, with the bufferevent's reading off until it is whole (it has
    /// read nothing yet: this runs before the loop's next poll). The whole-request deadline bounds the wait.
    private func readProxyHeader() {
        let reader = ProxyProtocolReader(connection: self, descriptor: bufferEvent.descriptor)
        guard bufferEvent.input?.count == 0, bufferEvent.setReading(false), reader.start(base: listener.loop.base)
        else {
            closeSoon(reason: "a connection from a trusted proxy was closed: its header could not be read")
            return
        }
        proxyHeader = reader
    }

    /// The header was read or refused: a refused one, or a client over its cap, closes the connection; otherwise the
    /// connection is counted against the client the header names (`nil`: its own peer) and its bufferevent reads.
    func proxyHeaderRead(_ reading: ProxyProtocolHeader.Reading) {
        proxyHeader = nil
        guard let connection else { return }
        switch reading {
        case .incomplete:
            return
        case .invalid(let reason):
            closeSoon(reason: "a connection from a trusted proxy was closed: \(reason)")
        case .header(_, let client):
            let peer = client.map { PeerAddress(bytes: $0.bytes) } ?? connection.peer.flatMap(PeerAddress.init)
            guard let peer, admit(peer), let address else {
                closeSoon(reason: nil)
                return
            }
            awaitsProxyHeader = false
            proxiedClient = client?.address
            bufferEvent.setReading(true)
            listener.loop.becameIdle(self, address: address)
        }
    }

    /// Closes the connection on the loop's next turn (not inside a libevent callback that goes on with it), noting
    /// `reason` in the log.
    private func closeSoon(reason: String?) {
        if let reason { listener.loop.reports.note("proxyProtocol", reason, now: ThrottledLog.now) }
        isClosingSoon = true
        armDeadline(seconds: 0)
    }

    /// Closes the connection now.
    func close() {
        guard let connection else { return }
        detach()
        connection.free()
    }

    /// Its request went to the worker pool: the whole-request deadline stops until the answer is queued (which restarts
    /// it), so a slow handler is never cut off by it; the handler's own waits are bounded.
    func awaitResponse(_ request: PendingRequest) {
        pending = request
        if let address { listener.loop.requestEnded(self, address: address) }
        deadline?.remove()
    }

    /// The worker's answer is back and about to be written.
    func responseArrived() {
        pending = nil
    }

    /// Runs `queue`, which adds one of passkeyd's own answers to the output, with the output watch off: evhttp adds an
    /// answer line by line (a dozen changes for one answer), and the watch has nothing to do in one of ours but arm
    /// the deadline, which this does once instead.
    func queueingOwnAnswer(_ queue: () -> Void) {
        if let address { listener.loop.requestEnded(self, address: address) }
        guard let outputWatch, let output = bufferEvent.output else { return queue() }
        output.setWatch(outputWatch, enabled: false)
        queue()
        output.setWatch(outputWatch, enabled: true)
        if !isAnswerDeadlineArmed {
            // An answer is queued: the next request has the write and the read timeouts to arrive.
            isAnswerDeadlineArmed = true
            armDeadline(seconds: listener.configuration.writeTimeoutSeconds + listener.configuration.readTimeoutSeconds)
        }
    }

    /// Counts `added` bytes of the arriving request; when they take the loop over `bound`, this connection closes on the
    /// loop's next turn (not inside libevent's read, which goes on with the connection after this callback).
    private func holdArriving(_ added: Int, bound: Int) {
        arrivingBytes += added
        listener.loop.arrivingBytes += added
        guard listener.loop.arrivingBytes > bound, !isOverArrivingBound else { return }
        isOverArrivingBound = true
        listener.loop.reports.note(
            "arrivingBytes",
            "requests still arriving hold more than \(bound) bytes: closed the connection that went over",
            now: ThrottledLog.now
        )
        armDeadline(seconds: 0)
    }

    /// (Re)starts the whole-request deadline (at once for a connection over the arriving-bytes bound).
    private func armDeadline(seconds: Int) {
        deadline?.add(timeout: timeval(tv_sec: isOverArrivingBound || isClosingSoon ? 0 : seconds, tv_usec: 0))
    }

    /// No complete request in time: the connection is closed.
    private func deadlinePassed() {
        close()
    }

    /// Stops watching the output and uncounts the connection; safe to call twice.
    private func detach() {
        pending?.isCancelled = true
        pending = nil
        proxyHeader?.stop()
        proxyHeader = nil
        guard let outputWatch else { return }
        bufferEvent.output?.removeWatch(outputWatch)
        self.outputWatch = nil
        if let inputWatch {
            bufferEvent.input?.removeWatch(inputWatch)
            self.inputWatch = nil
        }
        listener.connectionStates[bufferEvent] = nil
        if let deadline {
            deadline.free()
            self.deadline = nil
        }
        connection = nil
        if let address {
            listener.loop.left(self, address: address)
            listener.loop.connections.release(address.address)
            self.address = nil
        }
        if !isHandshakeCounted, let session = bufferEvent.tlsSession {
            isHandshakeCounted = true
            listener.loop.connections.handshakeEnded(completed: TLSServerContext.isHandshakeComplete(session))
        }
        listener.loop.connections.closed()
    }

    /// Called after every change to the input buffer, before evhttp parses what was added.
    private func inputChanged(_ buffer: EventBuffer, added: Int) {
        guard added > 0 else { return }
        isAnswerDeadlineArmed = false
        if !isHandshakeCounted {
            // Decrypted bytes arrive only once the handshake is done.
            isHandshakeCounted = true
            listener.loop.connections.handshakeEnded(completed: true)
        }
        if let address {
            listener.loop.becameBusy(self, address: address)
            // The first byte of a request starts it (bytes of a next request that arrive while this one is handled
            // count once that answer is queued and more arrive).
            if pending == nil { listener.loop.requestStarted(self, address: address) }
            if let bound = listener.configuration.maximumArrivingBytes { holdArriving(added, bound: bound) }
        }
        guard !hasReceivedNUL else { return }
        // Searched where it lies, not copied out first.
        if buffer.containsNUL(from: max(0, buffer.count - added)) {
            hasReceivedNUL = true
        }
    }

    /// Called after every change to the output buffer.
    private func outputChanged(_ buffer: EventBuffer, added: Int, deleted: Int) {
        if deleted > 0, !isRewriting, connection != nil, let address, buffer.count == 0, bufferEvent.input?.count == 0 {
            // The answer is written out and nothing of a next request has arrived: idle until a byte does.
            isAnswerDeadlineArmed = false
            listener.loop.becameIdle(self, address: address)
        }
        if added > 0, !isAnswerDeadlineArmed {
            // An answer is being queued: the next request has the write and the read timeouts to arrive.
            isAnswerDeadlineArmed = true
            armDeadline(seconds: listener.configuration.writeTimeoutSeconds + listener.configuration.readTimeoutSeconds)
        }
        guard added > 0, !isRewriting, !listener.loop.isSendingOwnResponse else { return }
        let start = max(0, buffer.count - added)
        if isDiscardingOutput {
            replaceTail(of: buffer, from: start, with: [])
            return
        }
        let statusLine = Self.peek(buffer, from: start, count: min(added, 16))
        let status = Self.statusCode(in: statusLine)
        if (100..<200).contains(status) {
            // libevent writes `100 Continue` with the request's version numbers ("HTTP/1.9"): answer HTTP/1.1.
            if !statusLine.starts(with: Array("HTTP/1.1 ".utf8)) {
                replaceTail(of: buffer, from: start, with: Array("HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n\r\n".utf8))
            }
            return
        }
        isDiscardingOutput = true
        let configuration = listener.configuration
        let response = ErrorResponse.raw(
            status: (400..<600).contains(status) ? status : 500,
            date: listener.loop.date.now(),
            maximumBodySize: configuration.maximumBodySize,
            maximumHeaderSize: configuration.maximumHeaderSize,
            strictTransportSecurity: listener.strictTransportSecurity
        )
        replaceTail(of: buffer, from: start, with: response)
    }

    /// Replaces the bytes from `start` to the end of `buffer` with `replacement`.
    private func replaceTail(of buffer: EventBuffer, from start: Int, with replacement: [UInt8]) {
        isRewriting = true
        defer { isRewriting = false }
        // A socket bufferevent freezes the front of its output buffer between writes.
        let wasFrozen = buffer.isFrontFrozen
        if wasFrozen {
            buffer.setFrontFrozen(false)
        }
        if start == 0 {
            buffer.drain(buffer.count)
        } else if let kept = EventBuffer.make() {
            buffer.moveFront(start, to: kept)
            buffer.drain(buffer.count)
            buffer.append(contentsOf: kept)
            kept.free()
        }
        if wasFrozen {
            buffer.setFrontFrozen(true)
        }
        if !replacement.isEmpty {
            buffer.append(replacement)
        }
    }

    /// Copies up to `count` bytes from `offset` without removing them. libevent refuses to copy out of a buffer whose
    /// front is frozen (a socket bufferevent's output between writes, as when an error page follows a pipelined
    /// request's answer): the front is thawed for the copy.
    private static func peek(_ buffer: EventBuffer, from offset: Int, count: Int) -> [UInt8] {
        let wasFrozen = buffer.isFrontFrozen
        if wasFrozen { buffer.setFrontFrozen(false) }
        defer { if wasFrozen { buffer.setFrontFrozen(true) } }
        return buffer.copy(from: offset, count: count)
    }

    /// The status code of a status line "HTTP/1.x NNN ...", or 0.
    private static func statusCode(in line: [UInt8]) -> Int {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, Array(line.prefix(prefix.count)) == prefix, line[8] == UInt8(ascii: " ") else { return 0 }
        var status = 0
        for byte in line[9..<12] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return 0 }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return status
    }
}
