import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import WebAuthnCore

/// One node over an upgrade fixture's store: the configuration every release's fixture is written and opened with
/// (every passkey algorithm offered, a backend key for introspection, the OpenID provider's public client, Sign in with
/// Apple against a stand-in, two webhook endpoints on stand-ins), the node's two secrets and a manual clock.
struct UpgradeNode {
    /// The names of the node's secrets: files of the data folder on SQLite, rows of the database on PostgreSQL.
    static let serverSecretName = "server-secret"
    static let appleRefreshTokenKeyName = "apple-refresh-token-key"
    /// The algorithms offered, so that an account of each can be made.
    static let algorithms: [(name: String, algorithm: COSEAlgorithm)] = [
        ("ES256", .es256), ("ES384", .es384), ("ES512", .es512), ("EdDSA", .eddsa), ("Ed25519", .ed25519), ("RS256", .rs256), ("PS256", .ps256),
    ]
    static let openIDClient = "ios"
    static let redirectURI = "com.example.app:/callback"
    static let pendingEndpoint = "app"
    static let deadEndpoint = "gone"

    let apple: AppleFixture
    /// Receives `pendingEndpoint`'s deliveries; `gone` receives `deadEndpoint`'s.
    let receiver: WebhookStandIn
    let gone: WebhookStandIn

    var server: RelyingPartyServer { apple.server }
    var client: PasskeyClient { apple.client }
    var clock: ManualClock { apple.clock }

    /// `receiverStatus` is what the pending endpoint's receiver answers; the dead endpoint's always answers 410.
    init(store: any PasskeyStore, clock: ManualClock, serverSecret: [UInt8], refreshTokenKey: [UInt8], receiverStatus: Int) throws {
        receiver = try WebhookStandIn(status: receiverStatus)
        gone = try WebhookStandIn(status: 410)
        let endpoint = { (id: String, url: String) in
            #"{"id": "\#(id)", "url": "\#(url)", "secret": "\#(WebhookReceiver.secret)", "firstRetrySeconds": 1, "maximumRetrySeconds": 2, "timeoutSeconds": 3}"#
        }
        let webhooks = "[\(endpoint(Self.pendingEndpoint, receiver.url)), \(endpoint(Self.deadEndpoint, gone.url))]"
        let extra = """
            "algorithms": [\(Self.algorithms.map { "\"\($0.name)\"" }.joined(separator: ", "))], \(TokenFixture.backends), \(DurabilityTests.liftedRateLimits),
            "oidc": {"clients": [{"id": "\(Self.openIDClient)", "name": "iOS app", "type": "public", "redirectURIs": ["\(Self.redirectURI)"]}]},
            """
        apple = try AppleFixture(
            store: store,
            clock: clock,
            webhooks: webhooks,
            extraConfiguration: extra,
            serverSecret: serverSecret,
            refreshTokenKey: refreshTokenKey
        )
    }

    /// `GET /me` with `token`.
    func me(_ token: String) throws -> ServerReply {
        try client.send("GET", "/me", headers: PasskeyClient.bearer(token))
    }

    /// `POST /introspect` of `token` with the backend key.
    func introspect(_ token: String) throws -> ServerReply {
        try TokenFixture.introspect(token, with: client)
    }

    /// `POST /auth/recovery` with `code`.
    func recover(_ username: String, code: String) throws -> ServerReply {
        try client.send("POST", "/auth/recovery", json: Array(#"{"username": "\#(username)", "code": "\#(code)"}"#.utf8))
    }

    /// `GET /oauth/userinfo` with the OpenID provider's access token `token`.
    func userInfo(_ token: String) throws -> ServerReply {
        try client.send("GET", "/oauth/userinfo", headers: PasskeyClient.bearer(token))
    }

    /// `POST /oauth/token` with the form `pairs`.
    func token(_ pairs: [(String, String)]) throws -> ServerReply {
        try client.send(
            "POST",
            "/oauth/token",
            json: Array(OpenIDProviderTests.query(pairs).utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")]
        )
    }

    /// Every delivery to `endpoint` in `status`.
    func deliveries(_ status: WebhookDeliveryStatus, to endpoint: String) throws -> [WebhookDeliveryRecord] {
        var found: [WebhookDeliveryRecord] = []
        var after: Int64 = 0
        while true {
            let page = try apple.store.webhookDeliveries(status: status, after: after, limit: 100)
            found += page.filter { $0.endpointID == endpoint }
            guard let last = page.last, page.count == 100 else { return found }
            after = last.id
        }
    }

    /// The public ID (`webhook-id`) of each event, by its sequence number.
    func publicEventIDs() throws -> [Int64: String] {
        Dictionary(try apple.store.events(after: 0, limit: 100_000).map { ($0.id, $0.publicID) }) { first, _ in first }
    }

    /// Waits (at most `seconds`) until `condition` holds.
    static func wait(_ what: String, within seconds: TimeInterval = 20, until condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { throw TransportFailure("\(what): not within \(Int(seconds)) s") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
