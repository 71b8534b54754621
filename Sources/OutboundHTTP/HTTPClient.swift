import CryptoCore
import Dispatch

/// The one outbound HTTP(S) client of a process: libevent's HTTP client (evhttp, with evdns for names) over OpenSSL
/// (a `TLSClientContext` from CryptoCore), on an event loop of its own thread. No hand-written HTTP parser.
///
/// Policy, for every request: `https`, or `http` only to a loopback address; certificate and host-name verification
/// always on (system roots, or the CA file of the client's or the request's `TLSClientContext`); redirects never
/// followed (a 3xx is the reply, with its `Location`); a connect timeout and a deadline; limits on the reply's headers
/// and body. One connection per request (`Connection: close`), at most `maximumConnections` at once; everything is
/// freed when a request completes, fails or times out.
///
/// Three ways to send: `send(_:) async`, `send(_:completion:)` (the completion runs on the client's loop thread and
/// must return quickly), and `sendAndWait(_:)`, which blocks the calling thread: for worker threads and command-line
/// tools, never for a server event-loop thread.
public final class HTTPClient: Sendable {
    private let loop: HTTPClientLoop

    /// Starts the client's event loop thread.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(HTTPClientError) {
        loop = try HTTPClientLoop(configuration: configuration)
    }

    /// Fails what is in flight with `http.clientShutDown` and ends the loop thread.
    deinit {
        loop.stop()
    }

    /// Ends the client as `deinit` does; later requests fail with `http.clientShutDown`. Idempotent.
    public func shutDown() {
        loop.stop()
    }

    /// Whether the client would send to `url` (scheme and loopback rule, host, no credentials), for checking a
    /// configuration at start-up.
    public static func validate(url: String) throws(HTTPClientError) {
        _ = try HTTPClientTarget(url: url)
    }

    /// Whether `host` is a loopback address literal (127.0.0.0/8, ::1) or `localhost`.
    public static func isLoopback(host: String) -> Bool {
        HTTPClientTarget.isLoopback(host)
    }

    /// Sends `request`; `completion` runs once, on the client's loop thread (or at once on the caller's thread when the
    /// request is refused before it is sent).
    public func send(_ request: HTTPClientRequest, completion: @escaping @Sendable (Result<HTTPClientReply, HTTPClientError>) -> Void) {
        let target: HTTPClientTarget
        do throws(HTTPClientError) {
            target = try HTTPClientTarget(url: request.url)
            try request.validate()
        } catch {
            completion(.failure(error))
            return
        }
        loop.submit(HTTPClientExchange(loop: loop, request: request, target: target, completion: completion))
    }

    /// Sends `request` and suspends until its reply or failure.
    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientReply {
        let result = await withCheckedContinuation { continuation in
            send(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends `request` and blocks the calling thread until its reply or failure (at most the request's deadline).
    /// Refused on the client's own loop thread, where it would wait for ever.
    public func sendAndWait(_ request: HTTPClientRequest) throws(HTTPClientError) -> HTTPClientReply {
        guard !loop.isCurrentThread else {
            throw HTTPClientError(.calledOnEventLoop, "sendAndWait was called on the HTTP client's own event loop")
        }
        let finished = DispatchSemaphore(value: 0)
        let box = ResultBox()
        send(request) { result in
            box.result = result
            finished.signal()
        }
        finished.wait()
        return try box.result.get()
    }

    /// Carries the result out of the completion; the semaphore orders the write before the read.
    private final class ResultBox: @unchecked Sendable {
        var result: Result<HTTPClientReply, HTTPClientError> = .failure(HTTPClientError(.shutDown, "no result"))
    }

    /// The most connections this client held at once, and the requests not finished yet (for tests).
    var statistics: (mostConnections: Int, outstanding: Int) {
        (loop.mostConnectionsInUse.load(ordering: .relaxed), loop.outstanding.load(ordering: .relaxed))
    }
}
