import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// Issue 43 item 14: a merge without `keep` goes ahead when the signed-in account holds nothing to lose (made by this
/// very sign-in: no passkey, no password, no recovery codes, only the identity it signed in with), keeping the other
/// account; otherwise the person is asked (`409 merge_conflict`).
struct MergeNothingToLoseTests {
    /// alice, a passkey account; a new Sign in with Apple account of the same person, signed in just now.
    static func accounts(_ fixture: AppleFixture) throws -> (alice: PasskeyClient.Account, fresh: ServerReply) {
        let alice = try fixture.client.register("alice")
        fixture.clock.advance(by: 60)
        return (alice, try fixture.signInFresh())
    }

    @Test func aFreshAccountWithNothingToLoseMergesIntoTheOtherWithoutAsking() throws {
        let fixture = try AppleFixture()
        let (alice, fresh) = try Self.accounts(fixture)
        let freshID = try AppleFixture.userID(fresh)
        let token = try #require(fresh.object["token"] as? String)
        let reply = try fixture.merge(try fixture.passkeyProof(alice.credential), keep: nil, token: token)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try AppleFixture.userID(reply) == alice.userID && reply.object["previousUserId"] as? String == Base64URL.encode(freshID))
        #expect(try fixture.store.user(id: freshID) == nil)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.userID == alice.userID)
        let continued = try #require(reply.object["token"] as? String, "a session of the survivor continues the signed-in one")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(continued)).status == 200)
    }

    @Test func anAccountWithSomethingToLoseIsAsked() throws {
        let fixture = try AppleFixture()
        let (alice, fresh) = try Self.accounts(fixture)
        let token = try #require(fresh.object["token"] as? String)
        #expect(try fixture.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(token)).status == 200)
        let reply = try fixture.merge(try fixture.passkeyProof(alice.credential), keep: nil, token: token)
        #expect(reply.status == 409 && reply.errorCode == "merge_conflict", "recovery codes are something to lose: \(reply.text)")
    }

    @Test func anAccountSignedInAgainLaterIsAsked() throws {
        let fixture = try AppleFixture()
        let (alice, _) = try Self.accounts(fixture)
        fixture.clock.advance(by: 120)
        let later = try fixture.signInFresh()
        let token = try #require(later.object["token"] as? String)
        let reply = try fixture.merge(try fixture.passkeyProof(alice.credential), keep: nil, token: token)
        #expect(reply.status == 409 && reply.errorCode == "merge_conflict", "not made by this sign-in: \(reply.text)")
    }

    @Test func theSignedInPasskeyAccountIsAskedAsBefore() throws {
        let fixture = try AppleFixture()
        let (alice, _) = try Self.accounts(fixture)
        let reply = try fixture.merge(try fixture.appleProof(), keep: nil, token: alice.token)
        #expect(reply.status == 409 && reply.errorCode == "merge_conflict")
    }
}
