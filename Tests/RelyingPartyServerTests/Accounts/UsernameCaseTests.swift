import AccountEvents
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 15: usernames compared case-insensitively (by `UserRecord.nameKey`: NFKC, then lowercased), on every path
/// that looks an account up by name; the name as the person typed it stays the one shown.
struct UsernameCaseTests {
    let store = InMemoryStore()
    let server: RelyingPartyServer
    let client: PasskeyClient
    let admin: PasskeyClient

    init() throws {
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(AdminAPITests.configuration),
            store: store
        )
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    func call(_ method: String, _ path: String, _ body: String? = nil) throws -> ServerReply {
        try admin.send(method, path, json: body.map { Array($0.utf8) }, headers: AdminAPITests.key)
    }

    @Test(arguments: ["frank", "FRANK", "fRaNk", "ＦＲＡＮＫ", " Frank "])
    func aCaseVariantIsTakenAndSignsTheOwnerIn(_ variant: String) throws {
        let frank = try client.register("Frank")
        #expect(try store.user(id: frank.userID)?.name == "Frank", "the display form is kept")
        #expect(try client.registrationOptions(username: variant).errorCode == "username_taken")
        let options = try client.requestOptions(username: variant)
        #expect(options.allowCredentials.map(\.id) == [Base64URL.encode(frank.credential.id)], "the real passkey, not decoys")
        let signedIn = try client.signIn(frank.credential, username: variant)
        #expect(signedIn.status == 200)
        #expect((signedIn.object["user"] as? [String: Any])?["username"] as? String == "Frank")
    }

    @Test func distinctLettersStayDistinctAccounts() throws {
        for name in ["straße", "STRASSE", "ılık"] {
            #expect(try client.registrationOptions(username: name).status == 200, "\(name) is free")
            _ = try client.register(name)
        }
        #expect(try client.registrationOptions(username: "STRAßE").errorCode == "username_taken")
        // The Turkish dotless ı keeps its own key, so ilik (and ILIK, whose I is i) is not ılık's name: yet it looks like
        // it (issue 43 item 8).
        #expect(try store.user(name: "ilik") == nil && store.user(name: "ILIK") == nil)
        #expect(try client.registrationOptions(username: "ilik").errorCode == "username_confusable")
        #expect(try client.registrationOptions(username: "ILIK").errorCode == "username_confusable")
    }

    @Test func decoysAreTheSameForEveryCaseOfAnUnknownName() throws {
        let lower = try client.requestOptions(username: "nobody").allowCredentials.map(\.id)
        #expect(try client.requestOptions(username: "NoBody").allowCredentials.map(\.id) == lower)
        #expect(try client.requestOptions(username: "ＮＯＢＯＤＹ").allowCredentials.map(\.id) == lower)
    }

    @Test func theAdminAPIComparesUsernamesCaseInsensitively() throws {
        let frank = try client.register("Frank")
        _ = try client.register("francis")
        let found = try call("GET", "/admin/users?query=FRAN")
        let names = ((found.object["users"] as? [[String: Any]]) ?? []).compactMap { ($0["user"] as? [String: Any])?["username"] as? String }
        #expect(names == ["francis", "Frank"], "by name key")
        #expect(try call("POST", "/admin/users", #"{"username": "FRANK"}"#).errorCode == "username_taken")
        let other = try #require(try call("POST", "/admin/users", #"{"username": "other"}"#).object["user"] as? [String: Any])
        let otherID = try #require(other["id"] as? String)
        #expect(try call("PATCH", "/admin/users/\(otherID)", #"{"username": "frank"}"#).errorCode == "username_taken")
        let own = try call("PATCH", "/admin/users/" + Base64URL.encode(frank.userID), #"{"username": "FRANK"}"#)
        #expect(own.status == 200, "an account may change the case of its own name")
        #expect(try store.user(name: "frank")?.name == "FRANK")
    }

    @Test func recoveryFindsTheAccountInAnyCase() throws {
        let frank = try client.register("Frank")
        let codes = try client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(frank.token)).object["codes"] as? [String] ?? []
        let code = try #require(codes.first)
        let reply = try client.send("POST", "/auth/recovery", json: Array(#"{"username": "FRANK", "code": "\#(code)"}"#.utf8))
        #expect(reply.status == 200)
    }

    /// The migration's `user.updated` is the server's own event for a username change.
    @Test func theMigrationsRenameEventIsTheServersUserUpdated() {
        let userID = [UInt8](repeating: 0xFB, count: 32)
        let at = Date(timeIntervalSinceReferenceDate: 12.5)
        let event = AccountEvent.userUpdated(userID: userID, changes: ["username"]).event(at: at, random: SystemRandom())
        #expect(NameKeyMigration.renameEventType == event.type)
        #expect(NameKeyMigration.renameEventData(userID: userID) == event.data)
    }
}
