import Foundation
import HTTPFields
import HTTPServer
import Synchronization

/// A local stand-in for the FIDO Metadata Service on 127.0.0.1 (plain HTTP, which `attestation.metadata.url` accepts
/// for loopback addresses): answers every GET with the status and body it is told to, and counts the requests.
final class MetadataStandIn: HTTPHandler, @unchecked Sendable {
    private let reply = Mutex((status: 404, body: [UInt8]()))
    private let requests = Atomic<Int>(0)
    private var server: HTTPServer?

    /// The URL the server fetches, e.g. http://127.0.0.1:49152/blob.jwt.
    private(set) var url = ""

    init() throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:0", threads: 1, log: .discarding), handler: self)
        server.start()
        url = "http://127.0.0.1:\(server.httpPort!)/blob.jwt"
        self.server = server
    }

    deinit {
        server?.stop()
    }

    /// Serves `blob` from now on (200).
    func serve(_ blob: String) {
        reply.withLock { $0 = (200, Array(blob.utf8)) }
    }

    /// Answers `status` with an empty body from now on.
    func answer(_ status: Int) {
        reply.withLock { $0 = (status, []) }
    }

    var requestCount: Int { requests.load(ordering: .relaxed) }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        requests.add(1, ordering: .relaxed)
        let (status, body) = reply.withLock { $0 }
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/jwt")]), body: body)
    }
}
