import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Native Sign in with Google (`POST /auth/google`) against a Google-shaped stand-in on loopback that serves a
/// discovery document and JWKS and mints tokens with Google's claims: one account per person, with Apple's rules.
@Suite struct GoogleSignInTests {
    static let subject = "110169484474386276334"

    static func user(_ reply: ServerReply) -> [String: Any] { reply.object["user"] as? [String: Any] ?? [:] }

    /// The types of the events appended so far, in order, and the payload of each.
    static func events(_ store: any PasskeyStore) throws -> [(type: String, data: [String: Any])] {
        try store.events(after: 0, limit: 1000).map { event in
            (event.type, (try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any]) ?? [:])
        }
    }

    @Test func aNewIdentityMakesAnAccountAndSignsItInAgain() throws {
        let fixture = try GoogleFixture()
        let first = try fixture.signInFresh()
        #expect(first.object["isNewAccount"] as? Bool == true)
        let token = try #require(first.object["token"] as? String)
        #expect(first.object["accessToken"] is String)
        let user = Self.user(first)
        #expect((user["username"] as? String)?.hasPrefix("google-") == true)
        #expect(user["email"] as? String == "person@example.com")
        #expect(user["emailVerified"] as? Bool == true)
        let again = try fixture.signInFresh()
        #expect(again.object["isNewAccount"] as? Bool == false)
        #expect(Self.user(again)["id"] as? String == user["id"] as? String)
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token))
        let methods = try #require(me.object["signInMethods"] as? [String: Any])
        let identities = try #require(methods["identities"] as? [[String: Any]])
        #expect(identities.count == 1)
        #expect(identities.first?["provider"] as? String == "google")
        #expect(identities.first?["issuer"] as? String == GoogleStandIn.issuer)
        #expect(identities.first?["subject"] as? String == Self.subject)
        let events = try Self.events(fixture.store)
        #expect(events.map(\.type) == ["user.created", "identity.linked", "session.created", "session.created"])
        #expect(events[0].data["method"] as? String == "oidc")
        #expect(events[1].data["provider"] as? String == "google" && events[1].data["subject"] as? String == Self.subject)
        #expect(events[2].data["method"] as? String == "oidc")
        // The session says how it was signed in, and so does the access token's amr.
        let sessions = try fixture.client.send("GET", "/me/sessions", headers: PasskeyClient.bearer(token))
        #expect(sessions.text.contains(#""method":"oidc""#))
    }

    @Test func theAdminAPIShowsTheIdentities() throws {
        let fixture = try GoogleFixture()
        let userID = try #require(Self.user(try fixture.signInFresh())["id"] as? String)
        let detail = try fixture.server.controllers.admin.service.user(id: userID)
        #expect(detail.identities.map(\.subject) == [Self.subject])
        #expect(detail.identities.first?.provider == "google" && detail.identities.first?.issuer == GoogleStandIn.issuer)
        #expect(detail.identities.first?.email == "person@example.com" && detail.identities.first?.emailVerified == true)
        // Deleting the account deletes its identity: the same Google account then makes a new one.
        try fixture.server.controllers.admin.service.deleteUser(id: userID)
        #expect(try fixture.signInFresh().object["isNewAccount"] as? Bool == true)
    }

    @Test func theEs256KeyOfTheSetIsAcceptedToo() throws {
        let fixture = try GoogleFixture()
        let raw = GoogleFixture.rawNonce()
        let reply = try fixture.signIn(idToken: try fixture.idToken(rawNonce: raw, key: fixture.standIn.ec), rawNonce: raw)
        #expect(reply.status == 200)
    }

    @Test func aSignedInAccountLinksAndTheIdentityCannotMoveWithoutAMerge() throws {
        let fixture = try GoogleFixture()
        let passkeyAccount = try fixture.client.register("alice")
        let linked = try fixture.signInFresh(headers: PasskeyClient.bearer(passkeyAccount.token))
        #expect(linked.object["isNewAccount"] as? Bool == false)
        #expect(Self.user(linked)["username"] as? String == "alice")
        // Another signed-in account offering the same Google identity is refused with a merge token.
        let other = try fixture.client.register("bob")
        let raw = GoogleFixture.rawNonce()
        let taken = try fixture.signIn(idToken: try fixture.idToken(rawNonce: raw), rawNonce: raw, headers: PasskeyClient.bearer(other.token))
        #expect(taken.status == 409)
        #expect(taken.object["error"] as? String == "identity_taken")
        #expect(taken.object["mergeToken"] is String)
        // Signed out, the identity signs in to alice.
        #expect(Self.user(try fixture.signInFresh())["username"] as? String == "alice")
        // The merge keeps bob and moves the identity with alice's passkey.
        let mergeToken = try #require(taken.object["mergeToken"] as? String)
        let merged = try fixture.client.send(
            "POST",
            "/me/merge",
            json: try JWSTestSigner.json(["proof": ["mergeToken": mergeToken], "keep": "current"]),
            headers: PasskeyClient.bearer(other.token)
        )
        #expect(merged.status == 200, "\(merged.text)")
        #expect(Self.user(try fixture.signInFresh())["username"] as? String == "bob")
    }

    @Test func unlinkingNeedsAnotherWayIn() throws {
        let fixture = try GoogleFixture()
        let only = try #require(try fixture.signInFresh().object["token"] as? String)
        let path = "/me/identities/google/\(Self.subject)"
        let refused = try fixture.client.send("DELETE", path, headers: PasskeyClient.bearer(only))
        #expect(refused.status == 409)
        #expect(refused.object["error"] as? String == "last_sign_in_method")
        let withPasskey = try fixture.client.register("carol")
        _ = try fixture.signInFresh(subject: "200", headers: PasskeyClient.bearer(withPasskey.token))
        let missing = try fixture.client.send("DELETE", "/me/identities/google/201", headers: PasskeyClient.bearer(withPasskey.token))
        #expect(missing.status == 404)
        #expect(missing.object["error"] as? String == "identity_not_found")
        let unlinked = try fixture.client.send("DELETE", "/me/identities/google/200", headers: PasskeyClient.bearer(withPasskey.token))
        #expect(unlinked.status == 200)
        #expect(try Self.events(fixture.store).last?.type == "identity.unlinked")
        // The identity is free again: it makes a new account.
        #expect(try fixture.signInFresh(subject: "200").object["isNewAccount"] as? Bool == true)
    }

    @Test func aVerifiedEmailOfATrustedProviderOnlySuggestsALink() throws {
        for trust in [true, false] {
            let fixture = try GoogleFixture(trustEmail: trust)
            let existing = UserRecord(
                id: [UInt8](repeating: 7, count: 32),
                name: "dora",
                displayName: "Dora",
                appAccountToken: UUID(),
                email: "dora@example.com",
                emailVerified: true,
                createdAt: fixture.clock.now
            )
            try fixture.store.transaction { transaction throws(StorageError) in try transaction.insertUser(existing) }
            let reply = try fixture.signInFresh(email: "dora@example.com")
            // Never an automatic link: a new account, and a suggestion only when the provider is trusted for email.
            #expect(reply.object["isNewAccount"] as? Bool == true)
            #expect(Self.user(reply)["username"] as? String != "dora")
            #expect(reply.object["linkSuggestion"] as? String == (trust ? "matching_email" : nil))
            #expect(Self.user(reply)["emailVerified"] as? Bool == trust)
        }
    }
}
