import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 14: Apple's `real_user_status`, stored for every identity, reaches the app's backend in `GET /me` and
/// the admin API's account.
struct RealUserStatusTests {
    @Test func theAppleIdentityShowsItsRealUserStatusInMeAndTheAdminAPI() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        let token = try #require(reply.object["token"] as? String)
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).object
        let apple = try #require(((me["signInMethods"] as? [String: Any])?["apple"] as? [[String: Any]])?.first)
        #expect(apple["realUserStatus"] as? String == "likelyReal", "the minted token's real_user_status 2")
        let userID = try #require((reply.object["user"] as? [String: Any])?["id"] as? String)
        let detail = try fixture.server.controllers.admin.service.user(id: userID)
        #expect(detail.appleIdentities.first?.realUserStatus == "likelyReal")
    }
}

/// Issue 43 item 14: deleting an account with Sign in with Apple says whether Apple's token is being revoked.
struct AppleDeletionAnswerTests {
    @Test func theDeletionSaysWhetherAppleTokensAreRevoked() throws {
        let fixture = try AppleFixture()
        // The fixture's sign-in sends no authorizationCode: passkeyd holds no refresh token, and says so.
        let reply = try fixture.signInFresh()
        let token = try #require(reply.object["token"] as? String)
        let deleted = try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(token))
        #expect(deleted.status == 200 && deleted.object["deleted"] as? Bool == true)
        #expect(deleted.object["appleRevocation"] as? String == "none", "\(deleted.text)")
        let event = try #require(try fixture.store.allEvents().last { $0.type == "user.deleted" })
        #expect(String(decoding: event.data, as: UTF8.self).contains(#""appleRevocation":"none""#))
        // A passkey account without Apple: no member.
        let passkey = try fixture.client.register("pia")
        let plain = try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(passkey.token))
        #expect(plain.status == 200 && plain.object["appleRevocation"] == nil)
    }
}

/// Issue 43 item 14: a display name passkeyd took from a private relay address's random local part is marked as a
/// default the app can tell apart, and a name the person gave is not.
struct AppleDefaultDisplayNameTests {
    @Test func aRelayAddressesLocalPartIsMarkedAsADefaultDisplayName() throws {
        let fixture = try AppleFixture()
        let unnamed = try #require(try fixture.signInFresh().object["user"] as? [String: Any])
        #expect(unnamed["displayName"] as? String == "x7k2q9")
        #expect(unnamed["displayNameIsDefault"] as? Bool == true)
        let named = try #require(
            try fixture.signInFresh(subject: "001234.another", extra: ["fullName": ["givenName": "Jane", "familyName": "Appleseed"]])
                .object["user"] as? [String: Any]
        )
        #expect(named["displayNameIsDefault"] as? Bool == false, "\(named)")
        let passkey = try fixture.client.register("pat")
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(passkey.token)).object["user"] as? [String: Any]
        #expect(me?["displayNameIsDefault"] as? Bool == true, "the username is a default too")
    }
}
