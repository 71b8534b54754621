import AssociatedDomains
import CryptoCore
import Foundation
import HTTPServer
import Synchronization

/// A domain (or Apple's CDN) on https://localhost:PORT for `check-domain`'s tests: the project's own HTTPS server with a
/// certificate from a `TestCertificateAuthority`, answering the paths it was given with their responses and any
/// other path with what passkeyd publishes for a configuration (`files`, for a domain served correctly) or a 404.
///
/// `@unchecked Sendable`: `server` and `port` are written only in `init`; the answers are behind a lock.
public final class DomainStandIn: HTTPHandler, @unchecked Sendable {
    private let answers: Mutex<[String: HTTPResponse]>
    private let files: WellKnownFiles?
    private var server: HTTPServer?
    public private(set) var port = 0

    /// `certificate` is a chain and key from `authority.issue(names:)`.
    public init(certificate: (chain: String, key: String), answers: [String: HTTPResponse] = [:], files: WellKnownFiles? = nil) throws {
        self.answers = Mutex(answers)
        self.files = files
        let tls = try TLSServerContext(certificateChainFile: certificate.chain, privateKeyFile: certificate.key)
        let server = try HTTPServer(
            configuration: HTTPServerConfiguration(httpsAddress: "127.0.0.1:0", tls: tls, threads: 1, log: .discarding),
            handler: self
        )
        server.start()
        port = server.httpsPort ?? 0
        self.server = server
    }

    deinit {
        server?.stop()
    }

    /// `https://localhost:PORT`.
    public var origin: String { "https://localhost:\(port)" }

    public func answer(_ path: String, with response: HTTPResponse) {
        answers.withLock { $0[path] = response }
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let answer = answers.withLock({ $0[request.path] }) { return answer }
        if case .success(let file) = files?.file(at: request.path) { return file.response(to: request) }
        return .json(status: 404, Array(#"{"error":"not_found"}"#.utf8))
    }
}
