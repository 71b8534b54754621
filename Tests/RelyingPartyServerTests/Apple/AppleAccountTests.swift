import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

@Suite("POST /auth/apple: accounts and linking")
struct AppleAccountTests {
    static func user(_ reply: ServerReply) -> [String: Any] { reply.object["user"] as? [String: Any] ?? [:] }

    @Test func theFirstAuthorizationsNameIsKeptForever() throws {
        let fixture = try AppleFixture()
        let first = try fixture.signInFresh(extra: ["fullName": ["givenName": "Jane", "familyName": "Appleseed"]])
        #expect(first.object["isNewAccount"] as? Bool == true)
        #expect(Self.user(first)["displayName"] as? String == "Jane Appleseed")
        let username = try #require(Self.user(first)["username"] as? String)
        #expect(username.hasPrefix("apple-") && username.count == 22)
        let userID = try AppleFixture.userID(first)
        #expect(try fixture.store.user(id: userID)?.displayName == "Jane Appleseed")

        let later = try fixture.signInFresh()
        #expect(later.object["isNewAccount"] as? Bool == false)
        #expect(try AppleFixture.userID(later) == userID)
        #expect(Self.user(later)["displayName"] as? String == "Jane Appleseed")
        let empty = try fixture.signInFresh(extra: ["fullName": ["givenName": "", "familyName": NSNull()]])
        #expect(Self.user(empty)["displayName"] as? String == "Jane Appleseed")
        let other = try fixture.signInFresh(extra: ["fullName": ["givenName": "Mallory"]])
        #expect(Self.user(other)["displayName"] as? String == "Jane Appleseed")
        #expect(try fixture.store.user(id: userID)?.displayName == "Jane Appleseed")
    }

    @Test func withoutANameTheDisplayNameIsTheEmailsLocalPart() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        #expect(Self.user(reply)["displayName"] as? String == "x7k2q9")
    }

    @Test func theEmailComesFromTheTokenAndAHiddenRelayIsStoredAsSuch() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh(extra: ["email": "attacker@example.com"])
        #expect(Self.user(reply)["email"] as? String == AppleTokenMinter.email)
        let identity = try #require(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject))
        #expect(identity.email == AppleTokenMinter.email)
        #expect(identity.isPrivateEmail)
        #expect(identity.emailVerified)
        #expect(!identity.emailDisabled)
        #expect(identity.realUserStatus == 2)
        #expect(identity.userID == (try AppleFixture.userID(reply)))
    }

    @Test func aSharedAddressIsNotMarkedPrivate() throws {
        let fixture = try AppleFixture()
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw) { claims in
            claims["email"] = "jane@example.org"
            claims["is_private_email"] = false
            claims["transfer_sub"] = "002.transfer"
        }
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 200)
        let identity = try #require(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject))
        #expect(identity.email == "jane@example.org")
        #expect(!identity.isPrivateEmail)
        #expect(identity.transferSubject == "002.transfer")
    }

    @Test func aSignedInPasskeyAccountLinksAppleAndTheSubjectCannotMove() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        let linked = try fixture.signInFresh(
            extra: ["fullName": ["givenName": "Someone", "familyName": "Else"]],
            headers: PasskeyClient.bearer(alice.token)
        )
        #expect(linked.object["isNewAccount"] as? Bool == false)
        #expect(try AppleFixture.userID(linked) == alice.userID)
        #expect(try fixture.store.appleIdentities(userID: alice.userID).map(\.subject) == [AppleTokenMinter.subject])
        #expect(try fixture.store.user(id: alice.userID)?.displayName == "alice", "linking does not rename the account")

        let bob = try fixture.client.register("bob")
        let raw = AppleFixture.rawNonce()
        let stolen = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw, headers: PasskeyClient.bearer(bob.token))
        #expect(stolen.status == 409)
        #expect(stolen.errorCode == "apple_identity_taken")
        #expect(try fixture.store.appleIdentities(userID: bob.userID) == [])

        let signedOut = try fixture.signInFresh()
        #expect(try AppleFixture.userID(signedOut) == alice.userID, "Sign in with Apple now opens alice's account")
    }

    @Test func aCookieSessionLinksOnlyFromTheSitesOwnPages() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        let raw = AppleFixture.rawNonce()
        let reply = try fixture.signIn(
            token: try fixture.identityToken(rawNonce: raw),
            rawNonce: raw,
            headers: [("Cookie", "__Host-passkeyd_session=\(alice.token)"), ("Origin", "https://evil.example")]
        )
        #expect(reply.status == 403)
        #expect(try fixture.store.appleIdentities(userID: alice.userID) == [])
    }

    @Test func aSignInWithAppleAccountAddsAPasskey() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        let token = try #require(reply.object["token"] as? String)
        let credential = try fixture.client.addPasskey(token: token)
        let userID = try AppleFixture.userID(reply)
        #expect(credential.userHandle == userID)
        let signedIn = try fixture.client.signIn(credential)
        #expect(signedIn.status == 200)
        #expect(try PasskeyClient.bytes((signedIn.object["user"] as? [String: Any])?["id"] as? String ?? "") == userID)
    }

    @Test func aSignInWithAppleAccountMayDeleteItsOnlyPasskey() throws {
        let fixture = try AppleFixture()
        let token = try #require(try fixture.signInFresh().object["token"] as? String)
        let credential = try fixture.client.addPasskey(token: token)
        let reply = try fixture.client.send("DELETE", "/me/passkeys/" + Base64URL.encode(credential.id), headers: PasskeyClient.bearer(token))
        #expect(reply.status == 200, "Sign in with Apple still opens the account")
    }

    @Test func theSQLiteStoreServesTheSameFlow() throws {
        let fixture = try AppleFixture(store: try SQLiteStore.inMemory())
        let first = try fixture.signInFresh(extra: ["fullName": ["givenName": "Jane"]])
        let later = try fixture.signInFresh()
        #expect(try AppleFixture.userID(first) == (try AppleFixture.userID(later)))
        #expect(Self.user(later)["displayName"] as? String == "Jane")
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw)
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 200)
        #expect(try fixture.signIn(token: token, rawNonce: raw).status == 401)
    }
}
