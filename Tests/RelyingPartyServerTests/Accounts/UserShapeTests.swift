import CryptoCore
import Foundation
import TestSupport
import Testing

/// One user shape in every answer that carries a user, the StoreKit `appAccountToken`, and `GET /me`'s sign-in
/// methods.
@Suite("One user shape")
struct UserShapeTests {
    static let members: Set<String> = ["id", "username", "displayName", "displayNameIsDefault", "appAccountToken", "disabled", "name"]

    static func user(_ reply: ServerReply) -> [String: Any] { reply.object["user"] as? [String: Any] ?? [:] }

    /// The same members everywhere (email ones when the account has an email), the deprecated `name` equal to the
    /// username, and one appAccountToken per account: a lowercase version-4 UUID, the same in every answer.
    @Test(arguments: [false, true])
    func everyAnswerCarriesTheSameUser(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let alice = try fixture.client.register("alice")
        let registration = try fixture.client.signIn(alice.credential)
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token))
        var answers = [registration, me]
        let apple = try fixture.signInFresh(extra: ["fullName": ["givenName": "Jane", "familyName": "Appleseed"]])
        answers.append(apple)
        let appleMe = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(try #require(apple.object["token"] as? String)))
        answers.append(appleMe)
        for reply in answers {
            let user = Self.user(reply)
            let expected = user["email"] == nil ? Self.members : Self.members.union(["email", "emailVerified"])
            #expect(Set(user.keys) == expected, "\(reply.text)")
            #expect(user["name"] as? String == user["username"] as? String, "the deprecated name is the username")
            let token = try #require(user["appAccountToken"] as? String)
            let uuid = try #require(UUID(uuidString: token))
            #expect(token == token.lowercased() && Array(token)[14] == "4" && uuid.uuidString.lowercased() == token)
        }
        #expect(Self.user(registration)["appAccountToken"] as? String == Self.user(me)["appAccountToken"] as? String)
        #expect(Self.user(apple)["appAccountToken"] as? String == Self.user(appleMe)["appAccountToken"] as? String)
        #expect(Self.user(apple)["appAccountToken"] as? String != Self.user(me)["appAccountToken"] as? String, "one per account")
        #expect(Self.user(apple)["displayName"] as? String == "Jane Appleseed")
        #expect((Self.user(apple)["username"] as? String)?.hasPrefix("apple-") == true)
        #expect(Self.user(apple)["email"] as? String == AppleTokenMinter.email && Self.user(apple)["emailVerified"] as? Bool == true)
        let stored = try #require(try fixture.store.user(id: try AppleFixture.userID(apple)))
        #expect(stored.appAccountToken.uuidString.lowercased() == Self.user(apple)["appAccountToken"] as? String)
        let later = try fixture.signInFresh()
        #expect(Self.user(later)["appAccountToken"] as? String == Self.user(apple)["appAccountToken"] as? String, "stable")
    }

    /// `GET /me` lists every way in: the passkey count and each Apple identity with its state.
    @Test func meListsTheSignInMethods() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        _ = try fixture.client.addPasskey(token: alice.token)
        try fixture.signInFresh(headers: PasskeyClient.bearer(alice.token))
        _ = try fixture.notify(AppleFixture.event("email-disabled", email: true))
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token))
        let methods = try #require(me.object["signInMethods"] as? [String: Any])
        #expect(methods["passkeys"] as? Int == 2)
        let apple = try #require(methods["apple"] as? [[String: Any]])
        #expect(apple.count == 1)
        let identity = try #require(apple.first)
        #expect(Set(identity.keys) == ["appleUserID", "email", "isPrivateEmail", "emailDisabled", "consentRevoked", "linkedAt", "realUserStatus"])
        #expect(identity["appleUserID"] as? String == AppleTokenMinter.subject)
        #expect(identity["email"] as? String == AppleTokenMinter.email)
        #expect(identity["isPrivateEmail"] as? Bool == true && identity["emailDisabled"] as? Bool == true)
        #expect(identity["consentRevoked"] as? Bool == false && identity["linkedAt"] is String)
        let bare = try fixture.client.register("bob")
        let bobMe = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(bare.token))
        #expect(((bobMe.object["signInMethods"] as? [String: Any])?["apple"] as? [Any])?.isEmpty == true)
    }
}
