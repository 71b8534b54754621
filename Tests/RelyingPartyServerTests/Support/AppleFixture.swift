import ConfigurationFile
import CryptoCore
import FederatedIdentity
import Foundation
import HTTPServer
import OutboundHTTP
import RelyingPartyServer
import Storage
import Synchronization
import TestSupport

/// A relying-party server with an `apple` block pointing at a running `AppleStandIn`, a manual clock and a log
/// that tests can read.
final class AppleFixture {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"

    let standIn: AppleStandIn
    let clock: ManualClock
    let store: any PasskeyStore
    let server: RelyingPartyServer
    let client: PasskeyClient
    /// The outbound client the Apple service calls the stand-in through.
    let outbound: HTTPClient
    /// What the server was made with, for the transfer commands' engine.
    let appleConfiguration: AppleConfiguration
    let setup: AppleSetup
    /// With `overHTTPS`, the server behind the real HTTPS listener that `client` reaches through curl.
    private(set) var loopback: HTTPServer?
    private let folder: TemporaryFolder?
    private let logLines = LogLines()

    /// A server with the `apple` block (and `extraConfiguration` members at the top level, each followed by a comma).
    /// `webhooks`: the configuration's `webhooks` list (JSON), delivered through the fixture's outbound client. With
    /// `overHTTPS`, `client` sends every request over real HTTPS (curl to the server's TLS listener on 127.0.0.1);
    /// otherwise straight to the handler. With `prefetchKeys`, Apple's keys are fetched (and waited for) before the
    /// fixture is returned, as the Apple worker's first round does in `passkeyd serve`. `serverSecret` and
    /// `refreshTokenKey` are the node's two secrets (a store written earlier needs the ones it was written with).
    init(
        store: any PasskeyStore = InMemoryStore(),
        standIn: AppleStandIn? = nil,
        jwksURL: String? = nil,
        clock: ManualClock = ManualClock(),
        webhooks: String? = nil,
        extraConfiguration: String = "",
        overHTTPS: Bool = false,
        prefetchKeys: Bool = true,
        serverSecret: [UInt8] = Array(repeating: 0x5A, count: 32),
        refreshTokenKey: [UInt8] = SystemRandom().bytes(count: 32)
    ) throws {
        self.clock = clock
        let standIn = try standIn ?? AppleStandIn()
        self.standIn = standIn
        self.store = store
        var json = Self.configurationJSON(standIn.baseURL, jwksURL: jwksURL, extra: extraConfiguration)
        if let webhooks { json = String(json.dropLast()) + #", "webhooks": \#(webhooks)}"# }
        let configuration = try TestServerFactory.configuration(json)
        appleConfiguration = configuration.apple!
        outbound = try HTTPClient()
        setup = AppleSetup(
            service: HTTPClientAppleService(configuration: configuration.apple!, client: outbound, timeoutSeconds: 3),
            privateKeyPEM: try AppleTestKeys.shared.p8.pem(),
            refreshTokenKey: refreshTokenKey
        )
        let lines = logLines
        server = try RelyingPartyServer(
            configuration: configuration,
            store: store,
            time: clock,
            random: SystemRandom(),
            enumerationSecret: serverSecret,
            appleSetup: setup,
            webhookClient: outbound,
            log: .messages { line in lines.append(line) }
        )
        if overHTTPS {
            let folder = try TemporaryFolder()
            let certificate = folder.path + "/certificate.pem"
            let key = folder.path + "/key.pem"
            try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: key, hostNames: ["127.0.0.1"], now: Date())
            let http = try HTTPServer(
                configuration: HTTPServerConfiguration(
                    httpsAddress: "127.0.0.1:0",
                    tls: try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key),
                    threads: 2,
                    log: .discarding
                ),
                handler: server
            )
            http.start()
            (self.folder, loopback) = (folder, http)
            client = PasskeyClient(CurlTransport(port: http.httpsPort ?? 0))
        } else {
            folder = nil
            client = PasskeyClient(DirectTransport(handler: server))
        }
        if prefetchKeys { try fetchKeys() }
    }

    deinit {
        loopback?.stop()
    }

    /// Starts a key fetch when the keys are missing or due and waits for it to complete (successfully or not).
    func fetchKeys() throws {
        let before = server.appleKeyStatus.completedFetches
        server.refreshAppleKeys()
        try awaitKeyFetches(before + 1)
    }

    /// Waits (at most 10 s) until `count` key fetches have completed.
    func awaitKeyFetches(_ count: Int) throws {
        let deadline = Date().addingTimeInterval(10)
        while server.appleKeyStatus.completedFetches < count {
            guard Date() < deadline else { throw TransportFailure("no key fetch completed within 10 s") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// The engine of `passkeyd apple transfer-out` / `transfer-in` on this fixture's store, stand-in and clock.
    func transfer() throws -> AppleTransfer {
        let lines = logLines
        return try AppleTransfer(configuration: appleConfiguration, setup: setup, store: store, time: clock, log: .messages { lines.append($0) })
    }

    /// What the server logged, in order.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])

        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func configurationJSON(_ baseURL: String, jwksURL: String? = nil, extra: String = "") -> String {
        """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null, \(extra)
         "apple": {"teamID": "\(teamID)", "keyID": "\(keyID)", "privateKey": "unused.p8",
                   "bundleIDs": ["\(AppleTokenMinter.bundleID)"], "servicesIDs": ["\(AppleTokenMinter.servicesID)"],
                   "jwksURL": "\(jwksURL ?? baseURL + "/auth/keys")", "tokenURL": "\(baseURL)/auth/token", "revokeURL": "\(baseURL)/auth/revoke",
                   "migrationURL": "\(baseURL)/auth/usermigrationinfo"}}
        """
    }

    var log: [String] { logLines.all }

    /// A fresh client-generated raw nonce.
    static func rawNonce() -> String { Base64URL.encode(SystemRandom().bytes(count: 32)) }

    /// A valid identity token for `rawNonce` at the fixture's time, edited by `edit`.
    func identityToken(rawNonce: String, subject: String = AppleTokenMinter.subject, edit: (inout [String: Any]) -> Void = { _ in }) throws -> String
    {
        var claims = AppleTokenMinter.identityClaims(now: clock.now, rawNonce: rawNonce, subject: subject)
        edit(&claims)
        return try AppleTokenMinter.sign(claims)
    }

    /// `POST /auth/apple` with the given members.
    func signIn(token: String, rawNonce: String, extra: [String: Any] = [:], headers: [(String, String)] = []) throws -> ServerReply {
        var body: [String: Any] = ["identityToken": token, "rawNonce": rawNonce]
        body.merge(extra) { _, new in new }
        return try client.send("POST", "/auth/apple", json: try AppleTokenMinter.json(body), headers: headers)
    }

    /// Signs in with a fresh client nonce and a valid token for `subject`; throws unless it succeeds.
    @discardableResult
    func signInFresh(subject: String = AppleTokenMinter.subject, extra: [String: Any] = [:], headers: [(String, String)] = []) throws -> ServerReply {
        let raw = Self.rawNonce()
        let reply = try signIn(token: try identityToken(rawNonce: raw, subject: subject), rawNonce: raw, extra: extra, headers: headers)
        guard reply.status == 200 else { throw TransportFailure("apple sign-in: \(reply.status) \(reply.text)") }
        return reply
    }

    /// `POST /auth/apple/notifications` with a notification carrying `event`, signed by the stand-in's key; with `jti`
    /// as its ID (a fresh random one by default, `NSNull()` for none).
    func notify(_ event: [String: Any], jti: Any? = nil) throws -> ServerReply {
        var claims = try AppleTokenMinter.notificationClaims(now: clock.now, event: event)
        if let jti { claims["jti"] = jti is NSNull ? nil : jti }
        let payload = try AppleTokenMinter.sign(claims)
        return try client.send("POST", "/auth/apple/notifications", json: try AppleTokenMinter.json(["payload": payload]))
    }

    /// `POST /me/merge` signed in with `token`, with `proof` and (unless nil) `keep`.
    func merge(_ proof: [String: Any], keep: String?, token: String) throws -> ServerReply {
        var body: [String: Any] = ["proof": proof]
        if let keep { body["keep"] = keep }
        return try client.send("POST", "/me/merge", json: try AppleTokenMinter.json(body), headers: PasskeyClient.bearer(token))
    }

    /// An Apple proof for `subject`: a fresh token and its raw nonce.
    func appleProof(subject: String = AppleTokenMinter.subject) throws -> [String: Any] {
        let raw = Self.rawNonce()
        return ["apple": ["identityToken": try identityToken(rawNonce: raw, subject: subject), "rawNonce": raw]]
    }

    /// A passkey proof: an assertion by `credential` answering fresh authentication options.
    func passkeyProof(_ credential: SoftwareCredential) throws -> [String: Any] {
        let assertion = try client.assertion(credential, answering: try client.requestOptions())
        return ["passkey": try JSONSerialization.jsonObject(with: try JSONEncoder().encode(assertion))]
    }

    /// An event of `type` for `subject` that happened `at` (sent in milliseconds, as Apple does; by default 123 ms after
    /// the manual clock's start, so after a sign-in at the start).
    static func event(
        _ type: String,
        subject: String = AppleTokenMinter.subject,
        email: Bool = false,
        at time: Date = Date(timeIntervalSince1970: 1_800_000_000.123)
    ) -> [String: Any] {
        var event: [String: Any] = ["type": type, "sub": subject, "event_time": Int((time.timeIntervalSince1970 * 1000).rounded())]
        if email {
            event["email"] = AppleTokenMinter.email
            event["is_private_email"] = "true"
        }
        return event
    }

    /// The decoded user handle of a sign-in reply.
    static func userID(_ reply: ServerReply) throws -> [UInt8] {
        try PasskeyClient.bytes((reply.object["user"] as? [String: Any])?["id"] as? String ?? "")
    }
}
