import ConfigurationReading
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The app's previous auth system as a bridge (issue 38, step 2): an issuer configured with `"bridge": true` (or of
/// type `firebase`) accepts the ID tokens the app's own sign-in with that system holds, without a nonce of this server
/// (each token still used once), and lands the person in the account whose `externalId` is the token's `sub`.
@Suite struct BridgeSignInTests {
    static let legacy = """
        "legacy": {"type": "oidc", "bridge": true, "issuer": "\(GoogleStandIn.issuer)", "clientID": "\(GoogleStandIn.webClientID)",
                   "discoveryURL": "STAND_IN_DISCOVERY"},
        """

    let fixture: GoogleFixture

    init() throws {
        fixture = try GoogleFixture(extraProviders: Self.legacy, prefetchKeys: false)
        fixture.server.startIdentityProviders()
        try fixture.awaitKeyFetches(1, "google")
        try fixture.awaitKeyFetches(1, "legacy")
    }

    /// A token of the previous system for `subject`: no nonce (the app's own sign-in made it), one audience.
    func legacyToken(subject: String) throws -> String {
        try fixture.idToken(rawNonce: "unused", subject: subject) { claims in
            claims["nonce"] = nil
            claims["azp"] = nil
            // Two tokens of one second differ (a signature of the same claims would be the same token: a replay).
            claims["jti"] = UUID().uuidString
        }
    }

    func signIn(_ token: String, provider: String = "legacy") throws -> ServerReply {
        try fixture.client.send("POST", "/auth/\(provider)", json: try JWSTestSigner.json(["idToken": token]))
    }

    @Test func aTokenOfTheOldSystemLandsInTheAccountWithItsUserID() throws {
        let admin = fixture.server.controllers.admin.service
        let made = try admin.createUser(AdminUserChange(username: "ada", externalId: "old-user-7"))
        let reply = try signIn(try legacyToken(subject: "old-user-7"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["isNewAccount"] as? Bool == false)
        #expect((reply.object["user"] as? [String: Any])?["id"] as? String == made.user.id)
        // Signed in, the person adds a passkey with the session as usual; a second token signs in to the same account.
        let again = try signIn(try legacyToken(subject: "old-user-7"))
        #expect((again.object["user"] as? [String: Any])?["id"] as? String == made.user.id)
    }

    @Test func anUnknownUserGetsAnAccountKeyedByTheirID() throws {
        let reply = try signIn(try legacyToken(subject: "old-user-8"))
        #expect(reply.status == 200 && reply.object["isNewAccount"] as? Bool == true, "\(reply.text)")
        #expect((reply.object["user"] as? [String: Any])?["externalId"] as? String == "old-user-8")
    }

    @Test func eachTokenIsUsedOnceAndOnlyABridgeTakesOneWithoutANonce() throws {
        let token = try legacyToken(subject: "old-user-9")
        #expect(try signIn(token).status == 200)
        let replay = try signIn(token)
        #expect(replay.status == 401 && replay.errorCode == "invalid_identity_token")
        // Google (no bridge) needs the nonce of this server's request.
        let google = try signIn(try legacyToken(subject: "old-user-9"), provider: "google")
        #expect(google.status == 400 && google.object["member"] as? String == "rawNonce")
        // Every other rule stays: another audience, an expired token.
        let foreign = try fixture.idToken(rawNonce: "x", subject: "old-user-9") { claims in
            claims["nonce"] = nil
            claims["azp"] = nil
            claims["aud"] = "another-project"
        }
        #expect(try signIn(foreign).errorCode == "invalid_identity_token")
        let token2 = try legacyToken(subject: "old-user-10")
        fixture.clock.advance(by: 3_700)
        #expect(try signIn(token2).errorCode == "invalid_identity_token")
    }

    @Test func firebaseIsABridgeFromItsProjectID() throws {
        let json = """
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
             "identityProviders": {"firebase": {"type": "firebase", "projectId": "my-app-1234"}}}
            """
        let provider = try #require(try TestServerFactory.configuration(json).identityProviders.first)
        #expect(provider.bridge && provider.clientIDs == ["my-app-1234"])
        #expect(provider.discoveryURL == "https://securetoken.google.com/my-app-1234/.well-known/openid-configuration")
        for bad in [#""My_App""#, #""""#, "5"] {
            #expect(throws: ConfigurationError.self) {
                _ = try TestServerFactory.configuration(json.replacingOccurrences(of: #""my-app-1234""#, with: bad))
            }
        }
    }
}
