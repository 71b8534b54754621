import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 8: a username that mixes scripts, or can be mistaken for another account's, is refused at
/// registration and by the admin API's create and rename, with a stable code; imports keep the names people have.
struct LookAlikeUsernameTests {
    /// ѕсоре in Cyrillic letters: one script, the skeleton of "scope".
    static let cyrillicScope = "\u{455}\u{441}\u{43E}\u{440}\u{435}"
    /// раypal: a Cyrillic р and а among Latin letters, the attack as it was found.
    static let mixedPaypal = "\u{440}\u{430}ypal"

    let clock = ManualClock()
    let store = InMemoryStore()
    let server: RelyingPartyServer
    let client: PasskeyClient
    let admin: PasskeyClient

    init() throws {
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(AdminAPITests.configuration),
            store: store,
            clock: clock
        )
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    func registrationOptions(_ username: String) throws -> ServerReply {
        try client.send("POST", "/webauthn/registration/options", json: Array(#"{"username": "\#(username)"}"#.utf8))
    }

    func adminCall(_ method: String, _ path: String, _ body: String) throws -> ServerReply {
        try admin.send(method, path, json: Array(body.utf8), headers: AdminAPITests.key)
    }

    @Test func registrationRefusesMixedScriptsAndLookAlikesOfTakenNames() throws {
        let mixed = try registrationOptions(Self.mixedPaypal)
        #expect(mixed.status == 400 && mixed.errorCode == "username_mixed_scripts" && mixed.object["member"] as? String == "username")
        #expect(try registrationOptions("paypal").status == 200, "the Latin name itself is free")

        _ = try client.register("scope")
        let lookAlike = try registrationOptions(Self.cyrillicScope)
        #expect(lookAlike.status == 409 && lookAlike.errorCode == "username_confusable")
        #expect(try registrationOptions("SCOPE").errorCode == "username_taken", "a case variant is the name itself")
        _ = try client.register("mary")
        #expect(try registrationOptions("rnary").errorCode == "username_confusable", "rn for m, in one script")
        #expect(try registrationOptions(Self.cyrillicScope + "\u{455}").status == 200, "a Cyrillic name that looks like no account's")
        #expect(try registrationOptions("山田taro").status == 200, "Latin with Japanese is one writing system")
    }

    @Test func theAdminAPIRefusesThemOnCreateAndRenameButNotOnItsOwnName() throws {
        let created = try adminCall("POST", "/admin/users", #"{"username": "scope"}"#)
        #expect(created.status == 201)
        let id = try #require((created.object["user"] as? [String: Any])?["id"] as? String)
        #expect(try adminCall("POST", "/admin/users", #"{"username": "\#(Self.cyrillicScope)"}"#).errorCode == "username_confusable")
        #expect(try adminCall("POST", "/admin/users", #"{"username": "\#(Self.mixedPaypal)"}"#).errorCode == "username_mixed_scripts")

        let other = try adminCall("POST", "/admin/users", #"{"username": "other"}"#)
        let otherID = try #require((other.object["user"] as? [String: Any])?["id"] as? String)
        #expect(try adminCall("PATCH", "/admin/users/\(otherID)", #"{"username": "\#(Self.cyrillicScope)"}"#).errorCode == "username_confusable")
        #expect(
            try adminCall("PATCH", "/admin/users/\(id)", #"{"username": "\#(Self.cyrillicScope)"}"#).status == 200,
            "an account may take a look-alike of its own name"
        )
        #expect(try store.allEvents().filter { $0.type == "user.created" }.count == 2, "nothing created by a refusal")
    }
}
