import CryptoCore
import Foundation
import OutboundHTTP
import RelyingPartyServer
import Storage
import TestSupport

/// A relying-party server whose `identityProviders` has `google` pointing at a running `GoogleStandIn` (and
/// `extraProviders` members beside it, where `STAND_IN_DISCOVERY` reads as the stand-in's discovery URL), a manual
/// clock, and a log tests can read.
final class GoogleFixture {
    let standIn: GoogleStandIn
    let clock: ManualClock
    let store: any PasskeyStore
    let server: RelyingPartyServer
    let client: PasskeyClient
    let outbound: HTTPClient
    private let logLines = AppleFixture.LogLines()

    init(
        store: any PasskeyStore = InMemoryStore(),
        trustEmail: Bool? = nil,
        discoveryURL: String? = nil,
        extraProviders: String = "",
        extraConfiguration: String = "",
        prefetchKeys: Bool = true
    ) throws {
        let clock = ManualClock()
        self.clock = clock
        let standIn = try GoogleStandIn(time: clock)
        self.standIn = standIn
        self.store = store
        let trust = trustEmail.map { #", "trustEmail": \#($0)"# } ?? ""
        let json = """
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null, \(extraConfiguration)
             "identityProviders": {\(extraProviders.replacingOccurrences(of: "STAND_IN_DISCOVERY", with: standIn.discoveryURL))
               "google": {"type": "google", "discoveryURL": "\(discoveryURL ?? standIn.discoveryURL)"\(trust),
                          "clientSecret": "\(GoogleStandIn.webClientSecret)",
                          "clientIDs": ["\(GoogleStandIn.webClientID)", "\(GoogleStandIn.androidClientID)", "\(GoogleStandIn.iosClientID)"]}}}
            """
        let configuration = try TestServerFactory.configuration(json)
        outbound = try HTTPClient()
        let lines = logLines
        server = try RelyingPartyServer(
            configuration: configuration,
            store: store,
            time: clock,
            random: SystemRandom(),
            enumerationSecret: Array(repeating: 0x5A, count: 32),
            webhookClient: outbound,
            log: .messages { line in lines.append(line) }
        )
        client = PasskeyClient(DirectTransport(handler: server))
        if prefetchKeys { try fetchKeys() }
    }

    var log: [String] { logLines.all }

    /// Starts a fetch of the provider's keys and waits (at most 10 s) for it to complete, successfully or not.
    func fetchKeys(_ provider: String = "google") throws {
        let before = server.identityProviderKeyStatus(provider).completedFetches
        server.startIdentityProviders()
        try awaitKeyFetches(before + 1, provider)
    }

    func awaitKeyFetches(_ count: Int, _ provider: String = "google") throws {
        let deadline = Date().addingTimeInterval(10)
        while server.identityProviderKeyStatus(provider).completedFetches < count {
            guard Date() < deadline else { throw TransportFailure("no key fetch completed within 10 s") }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func rawNonce() -> String { Base64URL.encode(SystemRandom().bytes(count: 32)) }

    /// A valid Google ID token for `rawNonce` at the fixture's time, edited by `edit`, signed by `key`.
    func idToken(
        rawNonce: String,
        subject: String = "110169484474386276334",
        email: String = "person@example.com",
        key: JWSSigningKey? = nil,
        edit: (inout [String: Any]) -> Void = { _ in }
    ) throws -> String {
        var claims = GoogleStandIn.claims(now: clock.now, rawNonce: rawNonce, subject: subject, email: email)
        edit(&claims)
        return try standIn.sign(claims, key: key)
    }

    /// `POST /auth/{provider}` with `idToken` and `rawNonce`.
    func signIn(idToken: String, rawNonce: String, provider: String = "google", headers: [(String, String)] = []) throws -> ServerReply {
        try client.send("POST", "/auth/\(provider)", json: try JWSTestSigner.json(["idToken": idToken, "rawNonce": rawNonce]), headers: headers)
    }

    /// Signs in with a fresh nonce and a valid token for `subject`; throws unless it succeeds.
    @discardableResult
    func signInFresh(
        subject: String = "110169484474386276334",
        email: String = "person@example.com",
        headers: [(String, String)] = []
    ) throws
        -> ServerReply
    {
        let raw = Self.rawNonce()
        let reply = try signIn(idToken: try idToken(rawNonce: raw, subject: subject, email: email), rawNonce: raw, headers: headers)
        guard reply.status == 200 else { throw TransportFailure("google sign-in: \(reply.status) \(reply.text)") }
        return reply
    }
}
