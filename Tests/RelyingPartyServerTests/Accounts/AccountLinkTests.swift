import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// Linking an Apple ID to a signed-in account, the `409` with a merge token, link suggestions by verified email, and
/// unlinking.
@Suite("Linking and unlinking")
struct AccountLinkTests {
    /// An Apple ID of another account: `409 apple_identity_taken` with a merge token bound to both accounts and to this
    /// session, single-use, five minutes; nothing is linked.
    @Test(arguments: [false, true])
    func aTakenIdentityAnswersWithAMergeToken(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let owner = try fixture.signInFresh()
        let bob = try fixture.client.register("bob")
        let raw = AppleFixture.rawNonce()
        let taken = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw, headers: PasskeyClient.bearer(bob.token))
        #expect(taken.status == 409 && taken.errorCode == "apple_identity_taken")
        let mergeToken = try #require(taken.object["mergeToken"] as? String)
        #expect(try PasskeyClient.bytes(mergeToken).count == 32)
        #expect(taken.object["mergeTokenExpiresAt"] is String)
        #expect(!taken.text.contains(Base64URL.encode(try AppleFixture.userID(owner))), "the other account is not named")
        #expect(try fixture.store.appleIdentities(userID: bob.userID) == [])
        // Bound to the session: bob's other session cannot use it, and then it is used up.
        let otherSession = try #require(try fixture.client.signIn(bob.credential).object["token"] as? String)
        #expect(try fixture.merge(["mergeToken": mergeToken], keep: "current", token: otherSession).errorCode == "merge_proof_rejected")
        #expect(try fixture.merge(["mergeToken": mergeToken], keep: "current", token: bob.token).errorCode == "merge_proof_rejected", "single-use")
        // Five minutes.
        let again = AppleFixture.rawNonce()
        let second = try fixture.signIn(token: try fixture.identityToken(rawNonce: again), rawNonce: again, headers: PasskeyClient.bearer(bob.token))
        let late = try #require(second.object["mergeToken"] as? String)
        fixture.clock.advance(by: 301)
        #expect(try fixture.merge(["mergeToken": late], keep: "current", token: bob.token).errorCode == "merge_proof_rejected")
        #expect(try fixture.store.user(id: try AppleFixture.userID(owner)) != nil, "nothing merged")
    }

    /// A new Apple account whose verified email another account holds gets `linkSuggestion: "matching_email"`, without
    /// saying which account; once declined, that pair is not suggested again; a third account with the email is.
    @Test func aMatchingVerifiedEmailIsSuggestedUntilDeclined() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        try Self.setEmail(AppleTokenMinter.email, verified: true, of: alice.userID, in: fixture.store)
        let first = try fixture.signInFresh()
        #expect(first.object["isNewAccount"] as? Bool == true)
        #expect(first.object["linkSuggestion"] as? String == "matching_email")
        #expect(!first.text.contains(Base64URL.encode(alice.userID)) && !first.text.contains("alice"))
        let token = try #require(first.object["token"] as? String)
        let declined = try fixture.client.send("POST", "/me/link-suggestion/decline", json: Array("{}".utf8), headers: PasskeyClient.bearer(token))
        #expect(declined.status == 200)
        #expect(try fixture.signInFresh().object["linkSuggestion"] == nil, "declined for this pair")
        let carol = try fixture.client.register("carol")
        try Self.setEmail(AppleTokenMinter.email.uppercased(), verified: true, of: carol.userID, in: fixture.store)
        #expect(try fixture.signInFresh().object["linkSuggestion"] as? String == "matching_email", "another account, compared case-insensitively")
    }

    @Test func anUnverifiedEmailOrALinkIsNeverSuggested() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        try Self.setEmail(AppleTokenMinter.email, verified: false, of: alice.userID, in: fixture.store)
        #expect(try fixture.signInFresh().object["linkSuggestion"] == nil, "the other's email is not verified")
        try Self.setEmail(AppleTokenMinter.email, verified: true, of: alice.userID, in: fixture.store)
        let raw = AppleFixture.rawNonce()
        let unverified = try fixture.identityToken(rawNonce: raw, subject: "001.unverified") { $0["email_verified"] = "false" }
        #expect(try fixture.signIn(token: unverified, rawNonce: raw).object["linkSuggestion"] == nil, "this one's email is not verified")
        let bob = try fixture.client.register("bob")
        let linked = try fixture.signInFresh(subject: "001.bob", headers: PasskeyClient.bearer(bob.token))
        #expect(linked.object["linkSuggestion"] == nil, "a link is the person's explicit choice already")
    }

    /// Unlinking ends the sessions the identity made, queues the revocation of its refresh token and keeps the account
    /// and its passkey sessions; it is refused when nothing else would let the person in.
    @Test(arguments: [false, true])
    func unlinkingKeepsALastWayIn(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let alice = try fixture.client.register("alice")
        let appleSession = try #require(
            try fixture.signInFresh(extra: ["authorizationCode": "c.link"], headers: PasskeyClient.bearer(alice.token)).object["token"] as? String
        )
        fixture.server.processDueAppleWork()
        let refreshToken = try #require(fixture.standIn.issuedRefreshTokens.first)
        let path = "/me/apple/" + AppleTokenMinter.subject
        #expect(
            try fixture.client.send("DELETE", "/me/apple/001.not-mine", headers: PasskeyClient.bearer(alice.token)).errorCode
                == "apple_identity_not_found"
        )
        let unlinked = try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(alice.token))
        #expect(unlinked.status == 200, "\(unlinked.text)")
        #expect(try fixture.store.appleIdentities(userID: alice.userID) == [])
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(appleSession)).status == 401, "its sessions ended")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200, "the passkey session stays")
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").compactMap { $0.form["token"] } == [refreshToken])
        let events = try fixture.store.allEvents().filter { $0.type == "apple.unlinked" }
        #expect(events.count == 1 && String(decoding: events[0].data, as: UTF8.self).contains(#""reason":"user""#))

        let apple = try fixture.signInFresh(subject: "001.only")
        let onlyToken = try #require(apple.object["token"] as? String)
        let refused = try fixture.client.send("DELETE", "/me/apple/001.only", headers: PasskeyClient.bearer(onlyToken))
        #expect(refused.status == 409 && refused.errorCode == "last_sign_in_method")
        try fixture.signInFresh(subject: "001.second", headers: PasskeyClient.bearer(onlyToken))
        #expect(
            try fixture.client.send("DELETE", "/me/apple/001.only", headers: PasskeyClient.bearer(onlyToken)).status == 200,
            "another Apple ID is a way in"
        )
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(onlyToken)).status == 401, "it was made by the unlinked one")
    }

    /// An account with a linked Apple ID may delete its last passkey; without one it may not.
    @Test func theLastPasskeyMayGoWhenAppleIsLinked() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        let path = "/me/passkeys/" + Base64URL.encode(alice.credential.id)
        #expect(try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(alice.token)).errorCode == "last_credential")
        try fixture.signInFresh(headers: PasskeyClient.bearer(alice.token))
        #expect(try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(alice.token)).status == 200)
    }

    /// What the app's backend does through the admin API: set a verified email.
    static func setEmail(_ email: String, verified: Bool, of userID: [UInt8], in store: any PasskeyStore) throws {
        try store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: userID) else { return }
            user.email = email
            user.emailVerified = verified
            _ = try transaction.updateUser(user)
        }
    }
}
