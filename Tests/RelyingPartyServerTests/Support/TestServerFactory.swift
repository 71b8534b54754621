import ConfigurationFile
import CryptoCore
import Foundation
import Observability
import RelyingPartyServer
import Storage
import TestSupport

/// Builds servers for tests: configuration from JSON (as `passkeyd serve` reads it), a store, a manual clock.
enum TestServerFactory {
    /// The relying party every test uses, without a demo site.
    static let baseConfiguration = #"{"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null}"#

    static func configuration(_ json: String = baseConfiguration) throws -> ServerConfiguration {
        try ServerConfiguration.load(json: Data(json.utf8))
    }

    static func make(
        configuration: ServerConfiguration? = nil,
        store: any PasskeyStore = InMemoryStore(),
        clock: ManualClock = ManualClock(),
        enumerationSecret: [UInt8] = Array(repeating: 0x5A, count: 32),
        log: Logger = .discarding
    ) throws -> RelyingPartyServer {
        try RelyingPartyServer(
            configuration: configuration ?? Self.configuration(),
            store: store,
            time: clock,
            random: SystemRandom(),
            enumerationSecret: enumerationSecret,
            log: log
        )
    }
}
