import Foundation
import HTTPServer
import Synchronization
import TestSupport

/// A webhook receiver in the test process: plain HTTP on a free loopback port, answering every request with the
/// status it is set to and keeping the `webhook-id` of each request it answered 2xx. `server` and `port` are set once,
/// in `init`, before any request can arrive (hence `@unchecked Sendable`); the rest is behind the mutex.
final class WebhookStandIn: HTTPHandler, @unchecked Sendable {
    private struct State {
        var status = 200
        var received: [String] = []
        var requests = 0
    }

    private let state = Mutex(State())
    private var server: HTTPServer?
    private(set) var port = 0

    init(status: Int = 200) throws {
        state.withLock { $0.status = status }
        let server = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:0", threads: 1, log: .discarding), handler: self)
        server.start()
        port = server.httpPort ?? 0
        self.server = server
    }

    deinit {
        server?.stop()
    }

    /// The `url` of an endpoint delivering here.
    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// The status every later request gets.
    func answer(_ status: Int) {
        state.withLock { $0.status = status }
    }

    /// The `webhook-id` of every delivery answered 2xx, in arrival order.
    var received: [String] { state.withLock { $0.received } }

    /// How many requests arrived, whatever they were answered.
    var requestCount: Int { state.withLock { $0.requests } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let id = request.headers["webhook-id"] ?? ""
        let status = state.withLock { state in
            state.requests += 1
            if (200...299).contains(state.status) { state.received.append(id) }
            return state.status
        }
        return HTTPResponse(status: status)
    }

    func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? { nil }
}
