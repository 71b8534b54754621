import ConfigurationReading
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 10: the app's metadata on an account, bounded in size and depth, set and read through the admin API,
/// and copied into access tokens as the configured claims, never over a registered one.
struct UserMetadataTests {
    let api: AdminAPITests

    init() throws {
        api = try AdminAPITests()
    }

    @Test func metadataIsSetReadReplacedAndRemoved() throws {
        let alice = try api.client.register("alice")
        let path = "/admin/users/" + Base64URL.encode(alice.userID)
        #expect(try api.call("GET", path).object["metadata"] == nil, "none at first")
        let set = try api.call("PATCH", path, #"{"metadata": {"plan": "pro", "org": {"id": 7, "tags": ["a"]}}}"#)
        #expect(set.status == 200, "\(set.text)")
        let read = try api.call("GET", path).object["metadata"] as? [String: Any]
        #expect(read?["plan"] as? String == "pro" && (read?["org"] as? [String: Any])?["id"] as? Int == 7)
        #expect(try api.store.user(id: alice.userID)?.metadata == #"{"org":{"id":7,"tags":["a"]},"plan":"pro"}"#, "stored sorted")
        let updated: EventRecord = try #require(try api.store.allEvents().last)
        let payload = String(decoding: updated.data, as: UTF8.self)
        #expect(updated.type == "user.updated" && payload.contains(#""changes":["metadata"]"#), "\(payload)")
        #expect(!payload.contains("pro"), "never the value")
        // Replaced whole, then removed.
        #expect(try api.call("PATCH", path, #"{"metadata": {"plan": "free"}}"#).status == 200)
        #expect(try api.store.user(id: alice.userID)?.metadata == #"{"plan":"free"}"#)
        #expect(try api.call("PATCH", path, #"{"metadata": {}}"#).status == 200)
        #expect(try api.store.user(id: alice.userID)?.metadata == nil)
        // The owner never sees it.
        #expect(try api.call("PATCH", path, #"{"metadata": {"plan": "pro"}}"#).status == 200)
        #expect(!(try api.client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).text.contains("plan")))
        // On creation too.
        let created = try api.call("POST", "/admin/users", #"{"username": "bob", "metadata": {"tier": 2}}"#)
        #expect(created.status == 201)
        #expect(try api.store.user(name: "bob")?.metadata == #"{"tier":2}"#)
    }

    @Test(arguments: [
        #"{"metadata": []}"#, #"{"metadata": "text"}"#, #"{"metadata": 3}"#,
        #"{"metadata": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}"#,
        #"{"metadata": {"a": [[[[[1]]]]]}}"#,
    ])
    func metadataThatIsNotABoundedObjectIsRefused(body: String) throws {
        let alice = try api.client.register("alice")
        let reply = try api.call("PATCH", "/admin/users/" + Base64URL.encode(alice.userID), body)
        #expect(reply.status == 400 && reply.errorCode == "invalid_request" && reply.object["member"] as? String == "metadata", "\(reply.text)")
        #expect(try api.store.user(id: alice.userID)?.metadata == nil)
    }

    @Test func metadataOverItsSizeIsRefusedAndFiveLevelsAreTaken() throws {
        let alice = try api.client.register("alice")
        let path = "/admin/users/" + Base64URL.encode(alice.userID)
        let long = String(repeating: "x", count: UserRecord.maximumMetadataBytes)
        let refused = try api.call("PATCH", path, #"{"metadata": {"notes": "\#(long)"}}"#)
        #expect(refused.status == 400 && refused.object["member"] as? String == "metadata")
        #expect(try api.call("PATCH", path, #"{"metadata": {"a": {"b": {"c": {"d": {"e": 1}}}}}}"#).status == 200, "five levels")
    }

    @Test func configuredMetadataMembersBecomeClaimsOfAccessTokens() throws {
        let store = InMemoryStore()
        let fixture = try TokenFixture(
            TokenFixture.configuration.replacingOccurrences(
                of: #""www": null,"#,
                with: #""www": null, "tokens": {"metadataClaims": ["plan", "org"]},"#
            ),
            store: store
        )
        let alice = try fixture.client.register("alice")
        var user = try #require(try store.user(id: alice.userID))
        user.metadata = #"{"notes":"private","org":{"id":7},"plan":"pro"}"#
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        let token = try #require(try fixture.mint(PasskeyClient.bearer(alice.token)).object["accessToken"] as? String)
        let claims = try DecodedToken(token).claims
        #expect(claims["plan"] as? String == "pro")
        #expect((claims["org"] as? [String: Any])?["id"] as? Int == 7)
        #expect(claims["notes"] == nil, "only the configured members")
        #expect(claims["sub"] as? String == Base64URL.encode(alice.userID))
        // An account without them gets none.
        let bob = try fixture.client.register("bob")
        let plain = try DecodedToken(try #require(try fixture.mint(PasskeyClient.bearer(bob.token)).object["accessToken"] as? String)).claims
        #expect(plain["plan"] == nil && plain["org"] == nil)
    }

    @Test(arguments: ["sub", "email", "scope", "roles", "external_id"])
    func aRegisteredClaimCannotBeConfigured(name: String) throws {
        let json = TokenFixture.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "tokens": {"metadataClaims": ["plan", "\#(name)"]},"#
        )
        #expect(throws: ConfigurationError.self) { try TestServerFactory.configuration(json) }
    }
}
