import CryptoCore
import Foundation
import OutboundHTTP
import TestSupport
import Testing

/// `private_key_jwt`: an `oidc` provider configured with `privateKey` and `keyID` exchanges the web flow's code with a
/// signed client assertion and no secret; the stand-in's token endpoint verifies it, and refuses another key's.
@Suite struct PrivateKeyJWTWebFlowTests {
    let fixture: GoogleFixture
    let flow: GoogleWebFlowTests
    let key: PrivateKey
    let folder: URL

    init() throws {
        key = try PrivateKey.generateEC(.p256)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-key-jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("corp.pem").path
        try Data(try key.pem().utf8).write(to: URL(fileURLWithPath: path))
        fixture = try GoogleFixture(
            extraProviders: #""corp": {"type": "oidc", "issuer": "https://accounts.google.com", "discoveryURL": "STAND_IN_DISCOVERY", "#
                + #""clientID": "\#(GoogleStandIn.webClientID)", "privateKey": "\#(path)", "keyID": "corp-1"}, "#
        )
        try fixture.awaitKeyFetches(1, "corp")  // started with google's by the fixture
        flow = GoogleWebFlowTests(fixture: fixture)
    }

    /// Runs the flow for `corp`: where the callback's continue page sends the browser.
    private func signIn() throws -> String? {
        let started = try flow.start("corp")
        let reply = try fixture.outbound.sendAndWait(HTTPClientRequest(url: started.authorizeURL, deadlineSeconds: 5))
        let location = try #require(reply.headers["location"])
        #expect(location.hasPrefix("https://example.com/auth/corp/callback?"))
        let callback = try flow.callback(String(location.dropFirst("https://example.com".count)), cookie: started.cookie)
        return GoogleWebFlowTests.continuesTo(callback)
    }

    @Test func theCodeExchangeAuthenticatesWithASignedAssertion() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        fixture.standIn.clientAssertionKey = try key.publicKey()
        #expect(try signIn() == "/home")
        // Each exchange sends a new assertion (the stand-in refuses a jti it has seen).
        #expect(try signIn() == "/home")
    }

    @Test func anAssertionTheProviderCannotVerifyIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        fixture.standIn.clientAssertionKey = try PrivateKey.generateEC(.p256).publicKey()
        #expect(try signIn() == "/login?passkeyd_identity_error=invalid_identity_token")
    }
}
