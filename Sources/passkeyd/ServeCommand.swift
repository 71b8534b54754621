import CryptoCore
import Foundation
import HTTPServer
import RelyingPartyServer
import StorageSQLite

/// `passkeyd serve [--config FILE]`: runs in the foreground, logs to stderr, stops cleanly on SIGTERM/SIGINT.
struct ServeCommand {
    let arguments: [String]

    func run() -> Int32 {
        var configuration = ServerConfiguration()
        switch arguments.count {
        case 0:
            do {
                configuration = try ServerConfiguration.load(json: Data("{}".utf8))
            } catch {
                return fail("invalid configuration: \(error)")
            }
        case 2 where arguments[0] == "--config":
            do {
                configuration = try ServerConfiguration.load(path: arguments[1])
            } catch {
                return fail("invalid configuration: \(error)")
            }
        default:
            return fail("usage: passkeyd serve [--config FILE]")
        }
        let log: @Sendable (String) -> Void = { message in FileHandle.standardError.write(Data("passkeyd: \(message)\n".utf8)) }
        do {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            return fail("cannot create the data folder \(configuration.dataDirectory)")
        }
        var tls: TLSServerContext?
        if configuration.httpsAddress != nil {
            let certificate = configuration.certificateFile ?? configuration.dataDirectory + "/tls-certificate.pem"
            let privateKey = configuration.privateKeyFile ?? configuration.dataDirectory + "/tls-private-key.pem"
            do {
                if configuration.certificateFile == nil {
                    try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: privateKey,
                                                     hostNames: [configuration.relyingPartyID, "127.0.0.1"], now: Date())
                }
                tls = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: privateKey)
            } catch {
                return fail("TLS: \(error)")
            }
        }
        let store: SQLiteStore
        let secret: [UInt8]
        let server: RelyingPartyServer
        do {
            store = try SQLiteStore(path: configuration.databasePath)
            secret = try ServerSecret.load(path: configuration.dataDirectory + "/server-secret")
            server = try RelyingPartyServer(configuration: configuration, store: store, enumerationSecret: secret, log: log)
        } catch let error as ConfigurationError {
            return fail("invalid configuration: \(error)")
        } catch {
            return fail("cannot start: \(error)")
        }
        let http: HTTPServer
        do {
            http = try HTTPServer(configuration: HTTPServerConfiguration(
                httpsAddress: configuration.httpsAddress, httpAddress: configuration.httpAddress, tls: tls,
                threads: configuration.threads, maximumBodySize: configuration.maximumBodySize, log: log), handler: server)
        } catch {
            return fail("cannot listen: \(error)")
        }
        http.start()
        if let port = http.httpsPort, let address = configuration.httpsAddress {
            log("serving https://\(Self.host(address) == "127.0.0.1" ? "localhost" : Self.host(address)):\(port)/ for relying party \(configuration.relyingPartyID)")
        }
        if let port = http.httpPort { log("serving plain HTTP on port \(port) (for a TLS-terminating proxy)") }
        SignalWaiter.waitForTermination()
        log("stopping")
        http.stop()
        store.close()
        return 0
    }

    private static func host(_ address: String) -> String {
        String(address[..<(address.lastIndex(of: ":") ?? address.endIndex)])
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd serve: \(message)\n".utf8))
        return 1
    }
}
