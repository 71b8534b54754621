import CryptoCore
import Foundation
import HTTPServer
import RelyingPartyServer
import Storage

/// `passkeyd serve [--config FILE]`: runs in the foreground, logs to stderr, stops cleanly on SIGTERM/SIGINT.
struct ServeCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(usage: "passkeyd serve [--config FILE]", options: ["--config"])

    func run() -> Int32 {
        let configuration: ServerConfiguration
        do {
            let line = try Self.syntax.parse(arguments)
            do {
                configuration = try line.value("--config").map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
            } catch {
                return fail("invalid configuration: \(error)")
            }
        } catch {
            return fail("\(error)")
        }
        let log: @Sendable (String) -> Void = { message in FileHandle.standardError.write(Data("passkeyd: \(message)\n".utf8)) }
        for warning in configuration.associatedDomains.warnings { log("warning: \(warning)") }
        do {
            try DataFolderPermissions.createFolder(configuration.dataDirectory)
        } catch {
            return fail("cannot create the data folder \(configuration.dataDirectory)")
        }
        var tls: TLSServerContext?
        if configuration.httpsAddress != nil {
            let certificate = configuration.certificateFile ?? configuration.dataDirectory + "/tls-certificate.pem"
            let privateKey = configuration.privateKeyFile ?? configuration.dataDirectory + "/tls-private-key.pem"
            do {
                if configuration.certificateFile == nil {
                    try SelfSignedCertificate.ensure(
                        certificateFile: certificate,
                        privateKeyFile: privateKey,
                        hostNames: [configuration.relyingPartyID, "127.0.0.1"],
                        now: Date()
                    )
                }
                tls = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: privateKey)
            } catch {
                return fail("TLS: \(error)")
            }
        }
        // The one outbound HTTP(S) client of the process (Apple, webhooks), on its own thread.
        let outbound: HTTPClient
        do {
            outbound = try HTTPClient()
        } catch {
            return fail("cannot start the outbound HTTP client: \(error)")
        }
        let opened: ConfiguredStore
        let server: RelyingPartyServer
        do {
            opened = try ConfiguredStore(configuration)
            let secret = try opened.secrets.secret(named: SecretSource.serverSecret)
            let appleSetup = try configuration.apple.map { apple in try opened.appleSetup(apple, client: outbound, log: log) }
            server = try RelyingPartyServer(
                configuration: configuration,
                store: opened.store,
                enumerationSecret: secret,
                appleSetup: appleSetup,
                webhookClient: outbound,
                log: log
            )
            try server.startWebhooks()
        } catch let error as ConfigurationError {
            return fail("invalid configuration: \(error)")
        } catch {
            return fail("cannot start: \(error)")
        }
        let http: HTTPServer
        let adminHTTP: HTTPServer?
        do {
            http = try HTTPServer(configuration: configuration.httpServerConfiguration(tls: tls, log: log), handler: server)
            adminHTTP = try configuration.adminHTTPServerConfiguration(tls: tls, log: log).map { settings in
                try HTTPServer(configuration: settings, handler: AdminAPI(server: server))
            }
        } catch {
            return fail("cannot listen: \(error)")
        }
        let database = configuration.postgresConnectionString == nil ? configuration.databasePath : nil
        let databaseFiles = database.map { [$0, $0 + "-wal", $0 + "-shm"] } ?? []
        for warning in DataFolderPermissions.warnings(folder: configuration.dataDirectory, extraFiles: databaseFiles) { log(warning) }
        http.start()
        adminHTTP?.start()
        server.startAppleWorker()
        server.startKeyWorker()
        if let port = http.httpsPort {
            log("serving https://\(configuration.relyingPartyID):\(port)/ (relying party \(configuration.relyingPartyID))")
        }
        if let port = http.httpPort { log("serving plain HTTP on port \(port) (for a TLS-terminating proxy)") }
        if let adminHTTP, let port = adminHTTP.httpsPort ?? adminHTTP.httpPort {
            log("serving the admin API on \(adminHTTP.httpsPort == nil ? "http" : "https")://\(configuration.adminHost):\(port)/admin/")
        }
        SignalWaiter.waitForTermination()
        log("stopping")
        adminHTTP?.stop()
        http.stop()
        server.stopAppleWorker()
        server.stopWebhooks()
        server.stopKeyWorker()
        outbound.shutDown()
        opened.close()
        return 0
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd serve: \(message)\n".utf8))
        return 1
    }
}
