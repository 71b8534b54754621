import CryptoCore
import Foundation
import Observability
import RelyingPartyServer
import Storage
import TestSupport

/// A server, its store and clock, and a client, for the access-token tests; helpers to read tokens.
struct TokenFixture {
    static let backendKey = "backend-key-of-the-api"
    /// The `backends` member that lets `backendKey` introspect (for other fixtures' configurations too).
    static let backends = #""backends": [{"name": "api", "keySHA256": "\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(backendKey.utf8))))"}]"#
    static let configuration = """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         \(backends)}
        """

    let store: any PasskeyStore
    let clock: ManualClock
    let server: RelyingPartyServer
    let client: PasskeyClient

    init(
        _ json: String = TokenFixture.configuration,
        store: any PasskeyStore = InMemoryStore(),
        clock: ManualClock = ManualClock(),
        secret: [UInt8] = Array(repeating: 0x5A, count: 32),
        log: Logger = .discarding
    ) throws {
        self.store = store
        self.clock = clock
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(json),
            store: store,
            clock: clock,
            enumerationSecret: secret,
            log: log
        )
        client = PasskeyClient(DirectTransport(handler: server))
    }

    /// Registers `username`; the account and an access token for its session.
    func register(_ username: String) throws -> (account: PasskeyClient.Account, accessToken: String) {
        let account = try client.register(username)
        let reply = try mint(PasskeyClient.bearer(account.token))
        guard reply.status == 200, let token = reply.object["accessToken"] as? String else { throw TransportFailure("mint: \(reply.text)") }
        return (account, token)
    }

    func mint(_ headers: [(String, String)]) throws -> ServerReply {
        try Self.mint(headers, with: client)
    }

    func introspect(_ token: String, key: String = TokenFixture.backendKey, form: Bool = true) throws -> ServerReply {
        try Self.introspect(token, with: client, key: key, form: form)
    }

    /// `POST /session/token` through `client`.
    static func mint(_ headers: [(String, String)], with client: PasskeyClient) throws -> ServerReply {
        try client.send("POST", "/session/token", headers: headers)
    }

    /// `POST /introspect` through `client`, form-encoded or JSON, authenticated by `key`.
    static func introspect(_ token: String, with client: PasskeyClient, key: String = backendKey, form: Bool = true) throws -> ServerReply {
        let body =
            form
            ? Array("token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")".utf8)
            : Array(try JSONEncoder().encode(["token": token]))
        return try client.send(
            "POST",
            "/introspect",
            json: body,
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", form ? "application/x-www-form-urlencoded" : "application/json")]
        )
    }

    /// The served JWKS as keys by `kid`.
    func jwks() throws -> [String: PublicKey] {
        let reply = try client.send("GET", "/.well-known/jwks.json")
        let document = try JSONDecoder().decode([String: [PublicKeyJWK]].self, from: Data(reply.body))
        return Dictionary(uniqueKeysWithValues: try (document["keys"] ?? []).map { ($0.kid, try $0.publicKey()) })
    }

    func sessions(of userID: [UInt8]) throws -> [SessionRecord] {
        try store.transaction { transaction throws(StorageError) in try transaction.sessions(userID: userID, now: clock.now) }
    }
}

/// A JWS's parts, decoded without verification.
struct DecodedToken {
    let header: [String: Any]
    let claims: [String: Any]

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let claims = Base64URL.decode(parts[1]) else {
            throw TransportFailure("not a JWS: \(token)")
        }
        self.header = try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any] ?? [:]
        self.claims = try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any] ?? [:]
    }

    var keyID: String? { header["kid"] as? String }

    /// A token with the same signature and these header and claims, for forgeries.
    static func forge(header: [String: Any], claims: [String: Any], signature: String) throws -> String {
        let encode = { (object: [String: Any]) in Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        }
        return try encode(header) + "." + encode(claims) + "." + signature
    }
}
