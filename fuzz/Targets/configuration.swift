// Target `configuration`: ServerConfiguration(json:) — the strict configuration parser (unknown keys, ranges, domains,
// origins, addresses, algorithms, associatedDomains), which reads no file — and, for a configuration it accepts,
// building the server (which encodes the well-known files and checks Apple's size limit) and fetching those files.
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPServer
import RelyingPartyServer
import Storage

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard var configuration = try? ServerConfiguration(json: Data(bytes(data, size))) else { return 0 }
    configuration.wwwDirectory = nil
    guard
        let server = try? RelyingPartyServer(
            configuration: configuration,
            store: InMemoryStore(),
            time: FixedTime(fixedNow),
            random: SystemRandom(),
            enumerationSecret: [1]
        )
    else { return 0 }
    for path in [
        "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json",
        "/.well-known/webauthn", "/.well-known/passkey-endpoints", "/healthz",
    ] {
        let response = server.handle(HTTPRequest(method: "GET", path: path))
        guard response.status == 200 || response.status == 404 else { fuzzFailure("GET \(path) answered \(response.status)") }
        if response.status == 200, (try? JSONSerialization.jsonObject(with: Data(response.body))) == nil {
            fuzzFailure("GET \(path) is not JSON")
        }
    }
    return 0
}
