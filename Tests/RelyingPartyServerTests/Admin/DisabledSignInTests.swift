import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 10: a disabled account is refused by Sign in with Apple, an identity provider and a password, with
/// `403 account_disabled` only once the proof verified; a wrong password reads as for anyone.
struct DisabledSignInTests {
    static func disable(_ server: RelyingPartyServer, _ reply: ServerReply) throws {
        let id = try #require((reply.object["user"] as? [String: Any])?["id"] as? String)
        _ = try server.controllers.admin.service.updateUser(id: id, AdminUserChange(disabled: true))
    }

    @Test func signInWithAppleIsRefused() throws {
        let fixture = try AppleFixture()
        try Self.disable(fixture.server, try fixture.signInFresh())
        let raw = AppleFixture.rawNonce()
        let refused = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw)
        #expect(refused.status == 403 && refused.errorCode == "account_disabled", "\(refused.text)")
    }

    @Test func anIdentityProviderSignInIsRefused() throws {
        let fixture = try GoogleFixture()
        try Self.disable(fixture.server, try fixture.signInFresh())
        let raw = GoogleFixture.rawNonce()
        let token = try fixture.idToken(rawNonce: raw, subject: "110169484474386276334", email: "person@example.com")
        let refused = try fixture.signIn(idToken: token, rawNonce: raw)
        #expect(refused.status == 403 && refused.errorCode == "account_disabled", "\(refused.text)")
    }

    @Test func aPasswordSignInIsRefusedOnlyWithTheRightPassword() throws {
        let passwords = try PasswordSignInTests()
        let bcrypt = PasswordSignInTests.fixture("bcrypt $2b$")
        #expect(try passwords.importLines(PasswordSignInTests.importFile([("ada", nil, bcrypt.hash)])).status == 200)
        let id = Base64URL.encode([UInt8](repeating: 1, count: 32))
        _ = try passwords.server.controllers.admin.service.updateUser(id: id, AdminUserChange(disabled: true))
        let wrong = try passwords.signIn(["username": "ada", "password": "not-the-password"])
        let stranger = try passwords.signIn(["username": "nobody", "password": "not-the-password"])
        #expect(wrong.status == 401 && wrong.errorCode == "password_invalid" && stranger.errorCode == wrong.errorCode)
        let right = try passwords.signIn(["username": "ada", "password": bcrypt.password])
        #expect(right.status == 403 && right.errorCode == "account_disabled", "\(right.text)")
    }
}
