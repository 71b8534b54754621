import CryptoCore
import Foundation
import HTTPServer
import RelyingPartyServer
import Storage
import TestSupport

/// The relying-party server behind the real HTTPS listener on 127.0.0.1 (port 0), with a self-signed
/// certificate in a temporary folder. Stopped by `stop()` (and on deinit).
final class LoopbackServer {
    let folder: TemporaryFolder
    let http: HTTPServer
    let handler: RelyingPartyServer

    var port: Int { http.httpsPort ?? 0 }

    init(store: any PasskeyStore = InMemoryStore(), threads: Int = 2) throws {
        folder = try TemporaryFolder()
        let certificate = folder.path + "/tls/certificate.pem"
        let key = folder.path + "/tls/key.pem"
        try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: key, hostNames: ["localhost", "127.0.0.1"], now: Date())
        handler = try TestServerFactory.make(store: store, clock: ManualClock(Date()))
        http = try HTTPServer(
            configuration: HTTPServerConfiguration(
                httpsAddress: "127.0.0.1:0", tls: try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key),
                threads: threads, log: { _ in }),
            handler: handler)
        http.start()
    }

    func stop() {
        http.stop()
    }

    deinit {
        http.stop()
    }
}
