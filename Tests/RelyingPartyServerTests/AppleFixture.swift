import CryptoCore
import Foundation
import HTTPServer
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
    private let logLines = LogLines()

    /// `webhooks`: the configuration's `webhooks` list (JSON), delivered through the fixture's outbound client.
    init(
        store: any PasskeyStore = InMemoryStore(),
        standIn: AppleStandIn? = nil,
        jwksURL: String? = nil,
        clock: ManualClock = ManualClock(),
        webhooks: String? = nil
    ) throws {
        self.clock = clock
        let standIn = try standIn ?? AppleStandIn()
        self.standIn = standIn
        self.store = store
        var json = Self.configurationJSON(standIn.baseURL, jwksURL: jwksURL)
        if let webhooks { json = String(json.dropLast()) + #", "webhooks": \#(webhooks)}"# }
        let configuration = try TestServerFactory.configuration(json)
        outbound = try HTTPClient()
        let setup = AppleSetup(
            service: HTTPClientAppleService(configuration: configuration.apple!, client: outbound, timeoutSeconds: 3),
            privateKeyPEM: try AppleTestKeys.shared.p8.pem(),
            refreshTokenKey: SystemRandom().bytes(count: 32)
        )
        let lines = logLines
        server = try RelyingPartyServer(
            configuration: configuration,
            store: store,
            time: clock,
            random: SystemRandom(),
            enumerationSecret: Array(repeating: 0x5A, count: 32),
            appleSetup: setup,
            webhookClient: outbound,
            log: { line in lines.append(line) }
        )
        client = PasskeyClient(DirectTransport(handler: server))
    }

    /// What the server logged, in order.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])

        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    static func configurationJSON(_ baseURL: String, jwksURL: String? = nil) -> String {
        """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         "apple": {"teamID": "\(teamID)", "keyID": "\(keyID)", "privateKey": "unused.p8",
                   "bundleIDs": ["\(AppleTokenMinter.bundleID)"], "servicesIDs": ["\(AppleTokenMinter.servicesID)"],
                   "jwksURL": "\(jwksURL ?? baseURL + "/auth/keys")", "tokenURL": "\(baseURL)/auth/token", "revokeURL": "\(baseURL)/auth/revoke"}}
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

    /// `POST /auth/apple/notifications` with a notification carrying `event`, signed by the stand-in's key.
    func notify(_ event: [String: Any]) throws -> ServerReply {
        let payload = try AppleTokenMinter.sign(try AppleTokenMinter.notificationClaims(now: clock.now, event: event))
        return try client.send("POST", "/auth/apple/notifications", json: try AppleTokenMinter.json(["payload": payload]))
    }

    static func event(_ type: String, subject: String = AppleTokenMinter.subject, email: Bool = false) -> [String: Any] {
        var event: [String: Any] = ["type": type, "sub": subject, "event_time": 1_800_000_000_123]
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
