import ConfigurationFile
import CryptoCore
import Foundation
import Observability
import RelyingPartyServer
import Storage
import TestSupport

@testable import HTTPServer

/// The relying-party server behind the real HTTPS listener on 127.0.0.1 (port 0), with a self-signed
/// certificate in a temporary folder, and optionally a plain-HTTP listener for raw-socket tests. Limits and
/// timeouts default to production's. Stopped by `stop()` (and on deinit).
final class LoopbackServer {
    let folder: TemporaryFolder
    let http: HTTPServer
    let handler: RelyingPartyServer

    var port: Int { http.httpsPort ?? 0 }
    /// The plain-HTTP port, 0 without a plain listener.
    var plainPort: Int { http.httpPort ?? 0 }
    /// The connections the HTTP server holds open right now.
    var openConnectionCount: Int { http.openConnectionCount }

    init(
        store: any PasskeyStore = InMemoryStore(),
        threads: Int = 2,
        plainListener: Bool = false,
        limits: HTTPServerConfiguration = HTTPServerConfiguration(),
        configuration: ServerConfiguration? = nil,
        clock: ManualClock = ManualClock(Date()),
        log: Logger = .discarding
    ) throws {
        folder = try TemporaryFolder()
        let certificate = folder.path + "/tls/certificate.pem"
        let key = folder.path + "/tls/key.pem"
        try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: key, hostNames: ["localhost", "127.0.0.1"], now: Date())
        handler = try TestServerFactory.make(configuration: configuration, store: store, clock: clock, log: log)
        http = try HTTPServer(
            configuration: HTTPServerConfiguration(
                httpsAddress: "127.0.0.1:0",
                httpAddress: plainListener ? "127.0.0.1:0" : nil,
                tls: try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key),
                threads: threads,
                maximumBodySize: limits.maximumBodySize,
                maximumHeaderSize: limits.maximumHeaderSize,
                readTimeoutSeconds: limits.readTimeoutSeconds,
                writeTimeoutSeconds: limits.writeTimeoutSeconds,
                maximumConnections: limits.maximumConnections,
                log: log
            ),
            handler: handler
        )
        http.start()
    }

    func stop() {
        http.stop()
    }

    deinit {
        http.stop()
    }
}
