import ConfigurationReading
import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer
@testable import Storage

/// Passkeys for an app's existing users: accounts keyed by the app's own user id (`externalId`), made idempotently by
/// the app's backend through the admin API, enrolled with a single-use link, and signed in with tokens whose `sub` is
/// the app's id when `tokens.subject` says so.
struct ExternalIDTests {
    static func configuration(subject: String? = nil) -> String {
        """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         "listen": {"https": "127.0.0.1:0", "admin": "127.0.0.1:0"},
         "admin": {"keys": [{"name": "ops-console", "keySHA256": "\(Hex.encode(DigestAlgorithm.sha256.hash(Array(AdminAPITests.adminKey.utf8))))"}]},
         \(TokenFixture.backends)\(subject.map { #", "tokens": {"subject": "\#($0)"}"# } ?? "")}
        """
    }

    let clock = ManualClock()
    let store = InMemoryStore()
    let server: RelyingPartyServer
    let client: PasskeyClient
    let admin: PasskeyClient

    init(subject: String? = nil) throws {
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(Self.configuration(subject: subject)),
            store: store,
            clock: clock
        )
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    func users(_ store: InMemoryStore) -> [UserRecord] { store.state.withLock { Array($0.users.values) } }

    func call(_ method: String, _ path: String, _ body: String? = nil) throws -> ServerReply {
        try admin.send(method, path, json: body.map { Array($0.utf8) }, headers: AdminAPITests.key)
    }

    /// The app's backend makes (or finds) the account of its user `externalID`, gets an enrollment link for it, and the
    /// app registers a passkey with the link's token: the sign-in answer.
    func enroll(externalID: String, username: String) throws -> (userID: String, answer: ServerReply, credential: SoftwareCredential) {
        let created = try call("POST", "/admin/users", #"{"username": "\#(username)", "externalId": "\#(externalID)"}"#)
        let userID = try #require((created.object["user"] as? [String: Any])?["id"] as? String)
        let link = try call("POST", "/admin/users/\(userID)/enrollment-links")
        let url = try #require(link.object["url"] as? String)
        let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
        let options = try client.post("/webauthn/registration/options", ["enrollmentToken": token]).decode(
            PublicKeyCredentialCreationOptionsJSON.self
        )
        let (credential, response) = try client.answer(options)
        return (userID, try client.registrationVerify(response), credential)
    }

    @Test func creatingIsIdempotentByExternalIdAndTheIdFindsTheAccount() throws {
        let first = try call("POST", "/admin/users", #"{"username": "ada", "externalId": "firebase-uid-42"}"#)
        #expect(first.status == 201 && first.object["created"] as? Bool == true)
        let user = try #require(first.object["user"] as? [String: Any])
        #expect(user["externalId"] as? String == "firebase-uid-42")
        let id = try #require(user["id"] as? String)
        // The same request again, or with other members: the account that has the id, as it is.
        for body in [#"{"username": "ada", "externalId": "firebase-uid-42"}"#, #"{"username": "someone-else", "externalId": "firebase-uid-42"}"#] {
            let again = try call("POST", "/admin/users", body)
            #expect(again.status == 200 && again.object["created"] as? Bool == false, "\(again.text)")
            #expect((again.object["user"] as? [String: Any])?["id"] as? String == id)
            #expect((again.object["user"] as? [String: Any])?["username"] as? String == "ada")
        }
        #expect(try store.user(name: "someone-else") == nil)
        #expect(try store.allEvents().map(\.type) == ["user.created"], "one account, one event")

        let found = try call("GET", "/admin/users?externalId=firebase-uid-42")
        let matches = try #require(found.object["users"] as? [[String: Any]])
        #expect(matches.count == 1 && matches.first?["matchedBy"] as? String == "externalId")
        #expect((matches.first?["user"] as? [String: Any])?["id"] as? String == id)
        #expect((try call("GET", "/admin/users?externalId=firebase-uid-4").object["users"] as? [Any])?.isEmpty == true, "byte for byte")
        #expect((try call("GET", "/admin/users?externalId=FIREBASE-UID-42").object["users"] as? [Any])?.isEmpty == true)
        let searched = try #require(try call("GET", "/admin/users?query=firebase-uid-42").object["users"] as? [[String: Any]])
        #expect(searched.map { $0["matchedBy"] as? String } == ["externalId"], "the search finds it too")
        #expect((try call("GET", "/admin/users/\(id)").object["user"] as? [String: Any])?["externalId"] as? String == "firebase-uid-42")
    }

    @Test func anExternalIdIsChangedRemovedAndNeverShared() throws {
        let ada = try #require(try call("POST", "/admin/users", #"{"username": "ada", "externalId": "1"}"#).object["user"] as? [String: Any])
        let bob = try #require(try call("POST", "/admin/users", #"{"username": "bob"}"#).object["user"] as? [String: Any])
        let (adaID, bobID) = (try #require(ada["id"] as? String), try #require(bob["id"] as? String))
        #expect(bob["externalId"] == nil, "absent when the account has none")

        let taken = try call("PATCH", "/admin/users/\(bobID)", #"{"externalId": "1"}"#)
        #expect(taken.status == 409 && taken.errorCode == "external_id_taken")
        #expect(try store.user(id: try #require(Base64URL.decode(bobID)))?.externalID == nil, "nothing changed")

        let changed = try call("PATCH", "/admin/users/\(adaID)", #"{"externalId": "2"}"#)
        #expect((changed.object["user"] as? [String: Any])?["externalId"] as? String == "2")
        #expect(try call("PATCH", "/admin/users/\(bobID)", #"{"externalId": "1"}"#).status == 200, "the freed id")
        let removed = try call("PATCH", "/admin/users/\(adaID)", #"{"externalId": ""}"#)
        #expect((removed.object["user"] as? [String: Any])?["externalId"] == nil)
        #expect(try call("DELETE", "/admin/users/\(bobID)").status == 200)

        // Lifecycle events carry the id the account had, so that the backend can map them; never on others.
        let events = try store.allEvents().map { ($0.type, try #require(JSONSerialization.jsonObject(with: Data($0.data)) as? [String: Any])) }
        #expect(events.map(\.0) == ["user.created", "user.created", "user.updated", "user.updated", "user.updated", "user.deleted"])
        #expect(events.map { $0.1["externalId"] as? String } == ["1", nil, "2", "1", nil, "1"])
        #expect(events[2].1["changes"] as? [String] == ["externalId"])
    }

    @Test(arguments: [
        (#""""#, "empty"), (#""\#(String(repeating: "x", count: 256))""#, "256 bytes"), (#""a\u0000b""#, "a NUL"),
        (#""line\nbreak""#, "a line break"), ("42", "a number"),
    ])
    func malformedExternalIdsAreRefused(value: String, what: String) throws {
        let reply = try call("POST", "/admin/users", #"{"username": "ada", "externalId": \#(value)}"#)
        #expect(reply.status == 400, "\(what): \(reply.text)")
        #expect(try store.user(name: "ada") == nil, "\(what)")
        let lookup = try call("GET", "/admin/users?externalId=" + (value == #""""# ? "" : "a%00b"))
        #expect(lookup.status == 400 && lookup.errorCode == "invalid_request")
    }

    @Test func theLongestExternalIdIsKept() throws {
        let longest = String(repeating: "é", count: 127) + "x"
        let reply = try call("POST", "/admin/users", #"{"username": "ada", "externalId": "\#(longest)"}"#)
        #expect(reply.status == 201 && (reply.object["user"] as? [String: Any])?["externalId"] as? String == longest)
    }

    @Test func anExistingUserEnrollsAPasskeyAndTokensCarryTheExternalIdAsAClaim() throws {
        let (userID, answer, credential) = try enroll(externalID: "auth0|5f7c8ec7", username: "ada")
        #expect(answer.status == 200, "\(answer.text)")
        #expect((answer.object["user"] as? [String: Any])?["externalId"] as? String == "auth0|5f7c8ec7")
        #expect(users(store).count == 1, "no second account")
        let claims = try DecodedToken(try #require(answer.object["accessToken"] as? String)).claims
        #expect(claims["sub"] as? String == userID, "the default subject is passkeyd's id")
        #expect(claims["external_id"] as? String == "auth0|5f7c8ec7")
        let session = try #require(answer.object["token"] as? String)
        let me = try client.send("GET", "/me", headers: PasskeyClient.bearer(session))
        #expect((me.object["user"] as? [String: Any])?["externalId"] as? String == "auth0|5f7c8ec7")
        let introspected = try TokenFixture.introspect(session, with: client)
        #expect(introspected.object["sub"] as? String == userID && introspected.object["external_id"] as? String == "auth0|5f7c8ec7")
        // A later sign-in with the passkey: the same account.
        let signIn = try client.signIn(credential)
        #expect((signIn.object["user"] as? [String: Any])?["externalId"] as? String == "auth0|5f7c8ec7")
    }

    @Test func withSubjectExternalIdTokensNameTheAppsUser() throws {
        let fixture = try ExternalIDTests(subject: "externalId")
        let (userID, answer, _) = try fixture.enroll(externalID: "user-1001", username: "ada")
        let accessToken = try #require(answer.object["accessToken"] as? String)
        let claims = try DecodedToken(accessToken).claims
        #expect(claims["sub"] as? String == "user-1001" && claims["external_id"] as? String == "user-1001")
        // The token is a credential of its account (its sub names the session's account through the external id).
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accessToken))
        #expect(me.status == 200 && (me.object["user"] as? [String: Any])?["id"] as? String == userID)
        for token in [accessToken, try #require(answer.object["token"] as? String)] {
            let introspected = try TokenFixture.introspect(token, with: fixture.client)
            #expect(introspected.object["active"] as? Bool == true && introspected.object["sub"] as? String == "user-1001")
        }
        // An account without one keeps passkeyd's id as sub, and no external_id claim says so.
        let plain = try fixture.client.register("bob")
        let minted = try TokenFixture.mint(PasskeyClient.bearer(plain.token), with: fixture.client)
        let plainClaims = try DecodedToken(try #require(minted.object["accessToken"] as? String)).claims
        #expect(plainClaims["sub"] as? String == Base64URL.encode(plain.userID) && plainClaims["external_id"] == nil)
        // Changing the id: a token minted before (sub the old id) no longer names the account; a new one does.
        #expect(try fixture.call("PATCH", "/admin/users/\(userID)", #"{"externalId": "user-2002"}"#).status == 200)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accessToken)).errorCode == "not_signed_in")
        #expect(try TokenFixture.introspect(accessToken, with: fixture.client).object["active"] as? Bool == false)
        let session = try #require(answer.object["token"] as? String)
        let renewed = try TokenFixture.mint(PasskeyClient.bearer(session), with: fixture.client)
        #expect(try DecodedToken(try #require(renewed.object["accessToken"] as? String)).claims["sub"] as? String == "user-2002")
    }

    @Test func aTokenWhoseSubNamesAnotherAccountIsRefused() throws {
        let fixture = try ExternalIDTests(subject: "externalId")
        let (_, answer, _) = try fixture.enroll(externalID: "user-1", username: "ada")
        _ = try fixture.enroll(externalID: "user-2", username: "bob")
        let ring = fixture.server.tokens.ring
        let now = fixture.clock.now
        let key = try #require(ring.signingKey(at: now))
        var claims = try DecodedToken(try #require(answer.object["accessToken"] as? String)).claims
        claims["sub"] = "user-2"
        let forged = try CompactJWS.sign(payload: Array(try JSONSerialization.data(withJSONObject: claims)), type: "at+jwt", with: key)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(forged)).errorCode == "not_signed_in")
    }

    @Test func subjectMustBeIdOrExternalId() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try TestServerFactory.configuration(Self.configuration(subject: "email"))
        }
    }

    @Test func exportAndImportCarryTheExternalId() throws {
        _ = try call("POST", "/admin/users", #"{"username": "ada", "externalId": "42"}"#)
        _ = try call("POST", "/admin/users", #"{"username": "bob"}"#)
        let export = try call("GET", "/admin/export")
        let lines = export.text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#""externalId":"42""#) && $0.contains(#""username":"ada""#) })

        let other = try ExternalIDTests()
        let imported = try other.admin.send(
            "POST",
            "/admin/import",
            json: Array(export.text.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/x-ndjson")]
        )
        #expect(imported.status == 200, "\(imported.text)")
        #expect(users(other.store).first { $0.name == "ada" }?.externalID == "42")
        let event = try #require(try other.store.allEvents().first { String(decoding: $0.data, as: UTF8.self).contains("42") })
        #expect(event.type == "user.created")

        // A line whose id another account has is refused, with its line, and nothing is written.
        _ = try other.call("POST", "/admin/users", #"{"username": "carol", "externalId": "7"}"#)
        let clash = lines.map {
            $0.contains(#""username":"ada""#) ? $0.replacingOccurrences(of: #""externalId":"42""#, with: #""externalId":"7""#) : $0
        }
        let refused = try other.admin.send(
            "POST",
            "/admin/import",
            json: Array(clash.joined(separator: "\n").utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/x-ndjson")]
        )
        #expect(refused.status == 409 && refused.errorCode == "external_id_taken", "\(refused.text)")
        #expect(users(other.store).first { $0.name == "ada" }?.externalID == "42")
    }
}
