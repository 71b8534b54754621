import CryptoCore
import Foundation
import HTTPServer
import Synchronization
import TestSupport

/// A domain (or Apple's CDN) on https://localhost:PORT for `check-domain`'s tests: the project's own HTTPS server with a
/// certificate from a `TestCertificateAuthority`, answering the paths it was given with their responses and any
/// other path with `fallback` (a passkeyd `RelyingPartyServer`, for a domain served correctly) or a 404.
///
/// `@unchecked Sendable`: `server` and `port` are written only in `init`; the answers are behind a lock.
final class DomainStandIn: HTTPHandler, @unchecked Sendable {
    private let answers: Mutex<[String: HTTPResponse]>
    private let fallback: (any HTTPHandler)?
    private var server: HTTPServer?
    private(set) var port = 0

    /// `certificate` is a chain and key from `authority.issue(names:)`.
    init(certificate: (chain: String, key: String), answers: [String: HTTPResponse] = [:], fallback: (any HTTPHandler)? = nil) throws {
        self.answers = Mutex(answers)
        self.fallback = fallback
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
    var origin: String { "https://localhost:\(port)" }

    func answer(_ path: String, with response: HTTPResponse) {
        answers.withLock { $0[path] = response }
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        if let answer = answers.withLock({ $0[request.path] }) { return answer }
        return fallback?.handle(request) ?? .json(status: 404, Array(#"{"error":"not_found"}"#.utf8))
    }
}
