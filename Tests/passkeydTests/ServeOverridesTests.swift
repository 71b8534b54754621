import ConfigurationFile
import Foundation
import RelyingPartyServer
import Testing

@testable import passkeyd

/// `serve --listen` and `PASSKEYD_LISTEN` / `PASSKEYD_DATA`: the command line over the environment over the file, and
/// every unusable value refused as a command-line error (exit status 2) before anything starts.
@Suite struct ServeOverridesTests {
    static let usage = ServeCommand.syntax.usage

    static func failure(listen: String?, environment: [String: String]) -> CommandLineError? {
        do {
            _ = try ServeOverrides(listen: listen, environment: environment, usage: usage)
            return nil
        } catch {
            return error
        }
    }

    static func file() throws -> ServerConfiguration {
        try ServerConfiguration.load(json: Data(#"{"listen": {"https": "127.0.0.1:9443"}, "dataDirectory": "/srv/file"}"#.utf8))
    }

    @Test func withoutOverridesTheFileStands() throws {
        let overrides = try ServeOverrides(listen: nil, environment: ["HOME": "/root"], usage: Self.usage)
        let configuration = overrides.applied(to: try Self.file())
        #expect(configuration.httpsAddress == "127.0.0.1:9443")
        #expect(configuration.dataDirectory == "/srv/file")
        #expect(configuration.databasePath == "/srv/file/passkeyd.sqlite")
    }

    @Test func theEnvironmentOverridesTheFile() throws {
        let environment = ["PASSKEYD_LISTEN": "0.0.0.0:8443", "PASSKEYD_DATA": "/var/lib/passkeyd"]
        let configuration = try ServeOverrides(listen: nil, environment: environment, usage: Self.usage).applied(to: try Self.file())
        #expect(configuration.httpsAddress == "0.0.0.0:8443")
        #expect(configuration.dataDirectory == "/var/lib/passkeyd")
        #expect(configuration.databasePath == "/var/lib/passkeyd/passkeyd.sqlite")
    }

    @Test func theCommandLineOverridesTheEnvironment() throws {
        let environment = ["PASSKEYD_LISTEN": "0.0.0.0:8443"]
        let configuration = try ServeOverrides(listen: "[::1]:7443", environment: environment, usage: Self.usage).applied(to: try Self.file())
        #expect(configuration.httpsAddress == "[::1]:7443")
    }

    @Test func listenAddsAnHTTPSListenerToAPlainOne() throws {
        let file = try ServerConfiguration.load(json: Data(#"{"listen": {"https": null, "http": "127.0.0.1:8080"}}"#.utf8))
        let configuration = try ServeOverrides(listen: "127.0.0.1:8443", environment: [:], usage: Self.usage).applied(to: file)
        #expect(configuration.httpsAddress == "127.0.0.1:8443")
        #expect(configuration.httpAddress == "127.0.0.1:8080")
    }

    @Test(arguments: [
        "", "8443", ":8443", "localhost", "localhost:", "localhost:0", "localhost:65536", "localhost:+443", "localhost:08443x",
        "local host:8443", "host/evil:8443", "[]:8443", "[::1:8443", "[zz::1]:8443", "0.0.0.0:8443\n",
        String(repeating: "a", count: 256) + ":8443",
    ])
    func unusableAddressesAreRefused(address: String) {
        for (listen, environment) in [(address, [:]), (nil, ["PASSKEYD_LISTEN": address])] as [(String?, [String: String])] {
            let error = Self.failure(listen: listen, environment: environment)
            #expect(error?.code == .invalidArgument)
            #expect(error?.reason.contains(listen == nil ? "PASSKEYD_LISTEN" : "--listen") == true)
        }
    }

    @Test(arguments: ["", "data", "./data", "/var/lib/passkeyd\n", "/var/\u{0}lib", "/" + String(repeating: "a", count: 1024)])
    func unusableDataFoldersAreRefused(path: String) {
        let error = Self.failure(listen: nil, environment: ["PASSKEYD_DATA": path])
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason.contains("PASSKEYD_DATA") == true)
    }

    @Test func goodAddressesAreTaken() throws {
        for address in ["0.0.0.0:8443", "127.0.0.1:1", "passkeyd.example.com:65535", "[::]:8443", "[::ffff:127.0.0.1]:443"] {
            #expect(ServeOverrides.isListenAddress(address), "\(address)")
        }
    }

    @Test func serveRefusesABadValueWithExitStatusTwo() {
        let command = ServeCommand(arguments: [], environment: ["PASSKEYD_LISTEN": "everywhere"])
        guard case .failure(let failure) = command.loadConfiguration() else {
            Issue.record("a bad PASSKEYD_LISTEN was taken")
            return
        }
        #expect(failure.status == 2)
        #expect(failure.message.contains("PASSKEYD_LISTEN must be \"host:port\""))
        guard case .failure(let listen) = ServeCommand(arguments: ["--listen", "0.0.0.0:99999"], environment: [:]).loadConfiguration() else {
            Issue.record("a bad --listen was taken")
            return
        }
        #expect(listen.status == 2)
        // A malformed command line keeps serve's status 1.
        guard case .failure(let malformed) = ServeCommand(arguments: ["--listen"], environment: [:]).loadConfiguration() else {
            Issue.record("--listen without a value was taken")
            return
        }
        #expect(malformed.status == 1)
    }

    @Test func serveLoadsTheFileWithTheOverrides() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-overrides-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("passkeyd.json").path
        try Data(#"{"listen": {"https": "127.0.0.1:9443"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let command = ServeCommand(arguments: ["--config", path, "--listen=0.0.0.0:8443"], environment: ["PASSKEYD_DATA": "/data"])
        guard case .success(let (configuration, loadedPath, _)) = command.loadConfiguration() else {
            Issue.record("serve did not load")
            return
        }
        #expect(loadedPath == path)
        #expect(configuration.httpsAddress == "0.0.0.0:8443")
        #expect(configuration.dataDirectory == "/data")
    }

    /// The permission to apply a PostgreSQL step that breaks the previous release's nodes comes only from this start's
    /// command line (`PostgresMigrationCompatibilityTests` shows the store refusing without it).
    @Test func onlyTheSwitchAllowsAnIncompatibleMigration() {
        func allows(_ arguments: [String], _ environment: [String: String] = [:]) -> Bool? {
            guard case .success(let (_, _, overrides)) = ServeCommand(arguments: arguments, environment: environment).loadConfiguration()
            else { return nil }
            return overrides.allowsIncompatibleMigration
        }
        #expect(allows(["--allow-incompatible-migration"]) == true)
        #expect(allows([]) == false)
        #expect(allows(["--listen", "127.0.0.1:8443"], ["PASSKEYD_ALLOW_INCOMPATIBLE_MIGRATION": "1"]) == false)
        #expect(allows(["--allow-incompatible-migration=yes"]) == nil, "a switch takes no value")
    }
}
