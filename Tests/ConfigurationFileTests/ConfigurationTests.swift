import ConfigurationFile
import ConfigurationReading
import Foundation
import HTTPFields
import HTTPServer
import Observability
import Testing
import WebAuthnCore

/// `ServerConfiguration.load(json:)`: defaults, and every invalid value refused with its key named.
struct ConfigurationTests {
    private func load(_ json: String) throws -> ServerConfiguration {
        try ServerConfiguration.load(json: Data(json.utf8))
    }

    @Test func emptyConfigurationHasTheDefaults() throws {
        let configuration = try load("{}")
        #expect(configuration.relyingPartyID == "localhost")
        #expect(configuration.relyingPartyName == "passkeyd")
        #expect(configuration.origins == ["https://localhost:8443"])
        #expect(configuration.httpsAddress == "127.0.0.1:8443")
        #expect(configuration.httpAddress == nil)
        #expect(configuration.certificateFile == nil)
        #expect(configuration.privateKeyFile == nil)
        #expect(configuration.dataDirectory == "data")
        #expect(configuration.databasePath == "data/passkeyd.sqlite")
        #expect(configuration.sessionLifetimeSeconds == 604_800)
        #expect(configuration.challengeLifetimeSeconds == 300)
        #expect(configuration.attestation.policy == .none)
        #expect(configuration.attestation.trustAnchors.isEmpty)
        #expect(configuration.algorithms == [.es256, .eddsa, .rs256])
        #expect(configuration.associatedDomains.webCredentialApps.isEmpty)
        #expect(configuration.wwwDirectory == "www")
        #expect(configuration.threads == ProcessInfo.processInfo.activeProcessorCount)
        #expect(configuration.maximumBodySize == 65_536)
    }

    @Test func documentedExampleLoads() throws {
        let configuration = try load(
            """
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com", "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"]},
             "listen": {"https": "0.0.0.0:443", "http": "127.0.0.1:8080"},
             "tls": {"certificate": "/etc/passkeyd/fullchain.pem", "privateKey": "/etc/passkeyd/privkey.pem"},
             "dataDirectory": "/var/lib/passkeyd", "database": {"sqlite": "/var/lib/passkeyd/db.sqlite"},
             "sessions": {"lifetimeSeconds": 3600}, "challenges": {"lifetimeSeconds": 60}, "attestation": "none",
             "algorithms": ["ES256", "RS1"], "www": null, "threads": 4, "limits": {"maximumBodySize": 2048}}
            """
        )
        #expect(configuration.relyingPartyID == "example.com")
        #expect(configuration.relyingPartyName == "Example")
        #expect(configuration.origins == ["https://example.com", "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"])
        #expect(configuration.httpsAddress == "0.0.0.0:443")
        #expect(configuration.httpAddress == "127.0.0.1:8080")
        #expect(configuration.certificateFile == "/etc/passkeyd/fullchain.pem")
        #expect(configuration.privateKeyFile == "/etc/passkeyd/privkey.pem")
        #expect(configuration.databasePath == "/var/lib/passkeyd/db.sqlite")
        #expect(configuration.sessionLifetimeSeconds == 3600)
        #expect(configuration.challengeLifetimeSeconds == 60)
        #expect(configuration.algorithms == [.es256, .rs1])
        #expect(configuration.wwwDirectory == nil)
        #expect(configuration.threads == 4)
        #expect(configuration.maximumBodySize == 2048)
    }

    @Test func relyingPartyIDAloneSetsItsOrigin() throws {
        let configuration = try load(#"{"relyingParty": {"id": "example.org"}}"#)
        #expect(configuration.origins == ["https://example.org"])
        #expect(try load(#"{"relyingParty": {"id": "localhost", "origins": ["http://localhost:8080"]}}"#).origins == ["http://localhost:8080"])
        #expect(try load(#"{"listen": {"https": null, "http": "127.0.0.1:8080"}}"#).httpsAddress == nil)
        #expect(try load(#"{"dataDirectory": "/srv/p"}"#).databasePath == "/srv/p/passkeyd.sqlite")
    }

    @Test func postgresDatabaseAndPoolSize() throws {
        let configuration = try load(#"{"threads": 3, "database": {"postgres": "host=db.internal dbname=passkeyd"}}"#)
        #expect(configuration.postgresConnectionString == "host=db.internal dbname=passkeyd")
        #expect(configuration.postgresPoolSize == nil)
        // Four workers per event loop and the suspect lane's two, each holding one connection at a time, and two for
        // the background work.
        #expect(configuration.workerCount == 12)
        #expect(configuration.defaultPoolSize == 16)
        #expect(try load(#"{"threads": 3, "workers": 2}"#).defaultPoolSize == 6)
        #expect(try load(#"{"workers": 2, "limits": {"suspectLane": null}}"#).defaultPoolSize == 4)
        let queued = try load(#"{"workers": 6, "limits": {"maximumQueuedRequests": 10}}"#).httpServerConfiguration(tls: nil, log: .discarding)
        #expect(queued.workers == 6)
        #expect(queued.maximumQueuedRequests == 10)
        #expect(throws: ConfigurationError.self) { try load(#"{"workers": 0}"#) }
        #expect(throws: ConfigurationError.self) { try load(#"{"limits": {"maximumQueuedRequests": 0}}"#) }
        #expect(try load(#"{"database": {"postgres": "postgresql://db/passkeyd", "poolSize": 12}}"#).postgresPoolSize == 12)
        #expect(try load("{}").postgresConnectionString == nil)
        let listening = try load(#"{"database": {"postgres": "host=pgbouncer", "pooler": "transaction", "listen": "host=db"}}"#)
        #expect(listening.postgresListenConnectionString == "host=db" && listening.postgresTransactionPooling)
    }

    /// Issue 44: `limits.suspectLane`, its defaults, `null` for none, its ranges; and the client it counts behind a
    /// proxy that names clients in `X-Forwarded-For`.
    @Test func theSuspectLane() throws {
        #expect(try load("{}").httpServerConfiguration(tls: nil, log: .discarding).suspectLane == SuspectLane())
        let lane = try load(#"{"limits": {"suspectLane": {"workers": 3, "maximumQueued": 9, "refusals": 1, "seconds": 60, "niceness": 0}}}"#)
        #expect(lane.suspectLane == SuspectLane(workers: 3, maximumQueued: 9, refusals: 1, seconds: 60, niceness: 0))
        #expect(try load(#"{"limits": {"suspectLane": null}}"#).httpServerConfiguration(tls: nil, log: .discarding).suspectLane == nil)
        for member in [#""workers": 0"#, #""niceness": 20"#, #""maximumAddresses": 10"#, #""refusals": 0"#, #""seconds": 0"#, #""lanes": 1"#] {
            #expect(throws: ConfigurationError.self) { try load(#"{"limits": {"suspectLane": {\#(member)}}}"#) }
        }
        let request = HTTPRequest(method: "GET", path: "/", headers: HTTPHeaders([("X-Forwarded-For", "198.51.100.7")]), remoteAddress: "10.0.0.1")
        let direct = try load("{}").httpServerConfiguration(tls: nil, log: .discarding)
        #expect(direct.clientAddress(request) == "10.0.0.1")
        let proxied = try load(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8"]}}"#).httpServerConfiguration(tls: nil, log: .discarding)
        #expect(proxied.clientAddress(request) == "198.51.100.7")
        // Both are the rate limits' rule, so the handler gets the server's resolution; behind PROXY protocol headers
        // the limits may read `X-Forwarded-For` where the lane does not, and each resolves its own.
        #expect(direct.sharesClientAddress && proxied.sharesClientAddress)
        let headers = try load(#"{"rateLimits": {"trustedProxies": ["10.0.0.0/8"], "proxyProtocol": true}}"#)
        #expect(!headers.httpServerConfiguration(tls: nil, log: .discarding).sharesClientAddress)
    }

    /// Issue 15: the HTTP limits and Strict-Transport-Security, as the listener gets them.
    @Test func httpLimitsAndStrictTransportSecurity() throws {
        let defaults = try load("{}").httpServerConfiguration(tls: nil, log: .discarding)
        #expect(defaults.maximumBodySize == 65_536)
        #expect(defaults.maximumHeaderSize == 16_384)
        #expect(defaults.readTimeoutSeconds == 30)
        #expect(defaults.writeTimeoutSeconds == 30)
        #expect(defaults.maximumConnections == 10_000)
        #expect(defaults.maximumConnectionsPerAddress == 256)
        #expect(defaults.reservedDescriptors == 128)
        #expect(defaults.strictTransportSecurity == "max-age=31536000")
        let configured = try load(
            """
            {"limits": {"maximumHeaderSize": 8192, "readTimeoutSeconds": 10, "writeTimeoutSeconds": 20, "maximumConnections": 500,
                        "maximumConnectionsPerAddress": 50},
             "tls": {"strictTransportSecurity": {"maxAgeSeconds": 63072000, "includeSubDomains": true}},
             "database": {"postgres": "host=db", "poolSize": 40}}
            """
        ).httpServerConfiguration(tls: nil, log: .discarding)
        #expect(configured.maximumHeaderSize == 8192)
        #expect(configured.readTimeoutSeconds == 10)
        #expect(configured.writeTimeoutSeconds == 20)
        #expect(configured.maximumConnections == 500)
        #expect(configured.maximumConnectionsPerAddress == 50)
        #expect(configured.reservedDescriptors == 168)
        #expect(configured.strictTransportSecurity == "max-age=63072000; includeSubDomains")
        #expect(try load(#"{"tls": {"strictTransportSecurity": null}}"#).strictTransportSecurity == nil)
        #expect(try load(#"{"tls": {"strictTransportSecurity": {"maxAgeSeconds": 0}}}"#).strictTransportSecurity == "max-age=0")
        // Behind a trusted proxy every connection comes from the proxy: the per-address cap is the global one, unless set.
        let proxied = try load(#"{"rateLimits": {"trustForwardedFor": true}, "limits": {"maximumConnections": 3000}}"#)
        #expect(proxied.httpServerConfiguration(tls: nil, log: .discarding).maximumConnectionsPerAddress == 3000)
        let proxiedCapped = try load(#"{"rateLimits": {"trustForwardedFor": true}, "limits": {"maximumConnectionsPerAddress": 900}}"#)
        #expect(proxiedCapped.httpServerConfiguration(tls: nil, log: .discarding).maximumConnectionsPerAddress == 900)
    }

    static let invalid: [(json: String, key: String)] = [
        (#"{"relyingparty": {}}"#, "relyingparty"),
        (#"{"relyingParty": {"id": "example.com", "icon": "x"}}"#, "relyingParty.icon"),
        (#"{"relyingParty": {"id": "Example.COM"}}"#, "relyingParty.id"),
        (#"{"relyingParty": {"id": "https://example.com"}}"#, "relyingParty.id"),
        (#"{"relyingParty": {"id": ".example.com"}}"#, "relyingParty.id"),
        (#"{"relyingParty": {"id": ""}}"#, "relyingParty.id"),
        (#"{"relyingParty": {"id": 7}}"#, "relyingParty.id"),
        (#"{"relyingParty": {"origins": ["http://example.com"]}}"#, "relyingParty.origins"),
        (#"{"relyingParty": {"origins": ["https://example.com/path"]}}"#, "relyingParty.origins"),
        (#"{"relyingParty": {"origins": ["example.com"]}}"#, "relyingParty.origins"),
        (#"{"relyingParty": {"origins": []}}"#, "relyingParty.origins"),
        (#"{"relyingParty": {"origins": ["android:apk-key-hash:"]}}"#, "relyingParty.origins"),
        (#"{"listen": {"https": "localhost"}}"#, "listen.https"),
        (#"{"listen": {"https": ":99999"}}"#, "listen.https"),
        (#"{"listen": {"https": ":443"}}"#, "listen.https"),
        (#"{"listen": {"http": "127.0.0.1:http"}}"#, "listen.http"),
        (#"{"listen": {"https": null}}"#, "listen"),
        (#"{"tls": {"certificate": "/etc/cert.pem"}}"#, "tls"),
        (#"{"tls": {"privateKey": "/etc/key.pem"}}"#, "tls"),
        (#"{"tls": {"certificate": "/a", "privateKey": "/b", "chain": "/c"}}"#, "tls.chain"),
        (#"{"sessions": {"lifetimeSeconds": 59}}"#, "sessions.lifetimeSeconds"),
        (#"{"sessions": {"lifetimeSeconds": 31536001}}"#, "sessions.lifetimeSeconds"),
        (#"{"sessions": {"lifetimeSeconds": "3600"}}"#, "sessions.lifetimeSeconds"),
        (#"{"sessions": {"lifetimeSeconds": 3600.5}}"#, "sessions.lifetimeSeconds"),
        (#"{"challenges": {"lifetimeSeconds": 9}}"#, "challenges.lifetimeSeconds"),
        (#"{"challenges": {"lifetimeSeconds": 3601}}"#, "challenges.lifetimeSeconds"),
        (#"{"attestation": "direct"}"#, "attestation"),
        (#"{"algorithms": ["ES256", "HS256"]}"#, "algorithms"),
        (#"{"algorithms": ["es256"]}"#, "algorithms"),
        (#"{"algorithms": []}"#, "algorithms"),
        (#"{"associatedDomains": {"webcredentials": {"apps": ["com.example.app"]}}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"associatedDomains": {"webcredentials": {"apps": ["abcde12345.com.example.app"]}}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"associatedDomains": {"webcredentials": {"apps": ["ABCDE1234.com.example.app"]}}}"#, "associatedDomains.webcredentials.apps"),
        (#"{"associatedDomains": {"webcredentials": {"apps": ["ABCDE12345."]}}}"#, "associatedDomains.webcredentials.apps"),
        (
            #"{"associatedDomains": {"android": [{"package": "com.example.app", "sha256CertFingerprints": ["AB:CD"]}]}}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (
            #"{"associatedDomains": {"android": [{"package": "com.example.app", "sha256CertFingerprints": ["\#(String(repeating: "ZZ:", count: 31))ZZ"]}]}}"#,
            "associatedDomains.android[0].sha256CertFingerprints"
        ),
        (#"{"associatedDomains": {"android": [{"sha256CertFingerprints": []}]}}"#, "associatedDomains.android[0].package"),
        (#"{"associatedDomains": {"android": {"package": "a"}}}"#, "associatedDomains.android"),
        (#"{"associatedDomains": {"ios": {}}}"#, "associatedDomains.ios"),
        (#"{"threads": 0}"#, "threads"),
        (#"{"limits": {"maximumBodySize": 100}}"#, "limits.maximumBodySize"),
        (#"{"limits": {"maximumHeaderSize": 100}}"#, "limits.maximumHeaderSize"),
        (#"{"limits": {"readTimeoutSeconds": 0}}"#, "limits.readTimeoutSeconds"),
        (#"{"limits": {"writeTimeoutSeconds": 3601}}"#, "limits.writeTimeoutSeconds"),
        (#"{"limits": {"maximumConnections": 0}}"#, "limits.maximumConnections"),
        (#"{"limits": {"maximumConnectionsPerAddress": "many"}}"#, "limits.maximumConnectionsPerAddress"),
        (#"{"limits": {"maximumConnectionsPerIP": 5}}"#, "limits.maximumConnectionsPerIP"),
        (#"{"tls": {"strictTransportSecurity": 31536000}}"#, "tls.strictTransportSecurity"),
        (#"{"tls": {"strictTransportSecurity": {"maxAgeSeconds": -1}}}"#, "tls.strictTransportSecurity.maxAgeSeconds"),
        (#"{"tls": {"strictTransportSecurity": {"includeSubDomains": "yes"}}}"#, "tls.strictTransportSecurity.includeSubDomains"),
        (#"{"tls": {"strictTransportSecurity": {"preload": true}}}"#, "tls.strictTransportSecurity.preload"),
        (#"{"www": 5}"#, "www"),
        (#"{"database": {"postgres": ""}}"#, "database.postgres"),
        (#"{"database": {"postgres": 5}}"#, "database.postgres"),
        (#"{"database": {"sqlite": "/a.sqlite", "postgres": "host=db"}}"#, "database"),
        (#"{"database": {"poolSize": 4}}"#, "database.poolSize"),
        (#"{"database": {"postgres": "host=db", "poolSize": 0}}"#, "database.poolSize"),
        (#"{"database": {"listen": "host=db"}}"#, "database.listen"),
        (#"{"database": {"postgres": "host=db", "listen": ""}}"#, "database.listen"),
        (#"{"database": {"mysql": "x"}}"#, "database.mysql"),
        (#"{"listen": {"admin": "127.0.0.1:8444"}}"#, "admin.keys"),
        (
            #"{"listen": {"https": null, "http": "127.0.0.1:8080", "admin": "0.0.0.0:8444"}, "admin": {"keys": [{"name": "ops", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#,
            "listen.admin"
        ),
        (
            #"{"listen": {"admin": 70000}, "admin": {"keys": [{"name": "ops", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#,
            "listen.admin"
        ),
        (
            #"{"listen": {"admin": "nowhere"}, "admin": {"keys": [{"name": "ops", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#,
            "listen.admin"
        ),
        (#"{"admin": {"keys": [{"name": "ops", "keySHA256": "ABC"}]}}"#, "admin.keys[0].keySHA256"),
        (
            #"{"admin": {"keys": [{"name": "bad name", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#,
            "admin.keys[0].name"
        ),
        (#"{"admin": {"tokens": []}}"#, "admin.tokens"),
        (#"{"recovery": {"sessionLifetimeSeconds": 5}}"#, "recovery.sessionLifetimeSeconds"),
    ]

    @Test func theAdminListenerIsOffUnlessSetAndLoopbackByDefault() throws {
        #expect(try load("{}").adminAddress == nil)
        let port = try load(
            #"{"listen": {"admin": 8444}, "admin": {"keys": [{"name": "ops", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#
        )
        #expect(port.adminAddress == "127.0.0.1:8444" && port.adminKeys.map(\.name) == ["ops"])
        let quiet = Logger.discarding
        let settings = try #require(port.adminHTTPServerConfiguration(tls: nil, log: quiet))
        #expect(settings.httpAddress == "127.0.0.1:8444" && settings.httpsAddress == nil && settings.threads == 1)
        #expect(port.httpServerConfiguration(tls: nil, log: quiet).suspectLane != nil)
        #expect(settings.suspectLane == nil, "no suspect lane on the admin listener: its threads are not in the pool's size")
        // Large bodies still arriving (keyless ones too) are bounded to two imports' worth (issue 43 item 3).
        #expect(settings.maximumArrivingBytes == 2 * ServerConfiguration.maximumAdminBodySize)
        #expect(try load("{}").httpServerConfiguration(tls: nil, log: quiet).maximumArrivingBytes == nil, "the public listener: no bound")
        #expect(try load("{}").adminHTTPServerConfiguration(tls: nil, log: quiet) == nil)
        // Another address only with TLS: the keys never cross the network in the clear.
        #expect(
            try load(
                #"{"listen": {"admin": "0.0.0.0:8444"}, "admin": {"keys": [{"name": "ops", "keySHA256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}}"#
            ).adminAddress == "0.0.0.0:8444"
        )
    }

    @Test(arguments: ConfigurationTests.invalid)
    func invalidValueNamesItsKey(json: String, key: String) {
        #expect {
            try ServerConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && error.description.hasPrefix(key + ": ") && !error.reason.isEmpty
        }
    }

    @Test(arguments: ["", "[]", "{", "null", "\"text\""])
    func notAnObjectIsRefused(json: String) {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(json: Data(json.utf8)) }
    }

    @Test func fingerprintInLowerCaseIsAcceptedAndPublishedInUpperCase() throws {
        let fingerprint = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
        let configuration = try load(#"{"associatedDomains": {"android": [{"package": "a.b", "sha256CertFingerprints": ["\#(fingerprint)"]}]}}"#)
        #expect(configuration.associatedDomains.android.first?.certificateFingerprints == [fingerprint.uppercased()])
    }

    @Test func missingFileIsAnError() {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: "/nonexistent/passkeyd.json") }
    }

    /// Each kind of mistake has its code; the printed message names the key, then the reason.
    @Test(
        arguments: [
            ("{", ConfigurationError.Code.invalidJSON, ""),
            (#"{"relyingParty": {"idd": "example.com"}}"#, .unknownKey, "relyingParty.idd"),
            (#"{"threads": 0}"#, .invalidValue, "threads"),
            (#"{"listen": {"https": null}}"#, .missingValue, "listen"),
            (#"{"attestation": {"trustAnchors": "/nonexistent/roots"}}"#, .invalidFile, "attestation.trustAnchors"),
            (#"{"attestation": {"authenticatorNames": "/nonexistent/names.json"}}"#, .unreadable, "attestation.authenticatorNames"),
        ] as [(String, ConfigurationError.Code, String)]
    )
    func errorsCarryTheirCode(json: String, code: ConfigurationError.Code, key: String) {
        #expect {
            try ServerConfiguration.load(json: Data(json.utf8))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == code && error.key == key && error.description == (key.isEmpty ? error.reason : key + ": " + error.reason)
        }
        do {
            _ = try ServerConfiguration.load(path: "/nonexistent/passkeyd.json")
        } catch {
            #expect(error.code == .unreadable)
        }
    }

    @Test func codesAreConfigurationCodes() {
        #expect(ConfigurationError.Code.allCases.count == 6)
        #expect(ConfigurationError.Code.allCases.allSatisfy { $0.rawValue.hasPrefix("configuration.") })
    }
}
