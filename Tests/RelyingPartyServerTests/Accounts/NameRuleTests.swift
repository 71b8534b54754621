import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Issue 15: usernames, display names and passkey names under one rule: NFKC, no control, format (bidi, zero-width),
/// separator, surrogate or private-use characters, at most 64 UTF-8 bytes.
struct NameRuleTests {
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store)))
    }

    static let refused = [
        "ali\u{202E}ecila", "bob\u{2066}x\u{2069}", "zero\u{200B}width", "join\u{200D}er", "tab\u{0009}bed", "line\u{2028}sep",
        "private\u{E000}use", String(repeating: "é", count: 33), String(repeating: "a", count: 65),
    ]

    @Test(arguments: refused)
    func aUsernameOrDisplayNameBreakingTheRulesIsRefused(_ name: String) throws {
        let username = try client.registrationOptions(username: name)
        #expect(username.status == 400)
        #expect(username.errorCode == "invalid_username")
        let display = try client.post("/webauthn/registration/options", ["username": "carol", "displayName": name])
        #expect(display.status == 400)
        #expect(display.errorCode == "invalid_request")
        #expect(display.object["member"] as? String == "displayName")
    }

    @Test(arguments: refused)
    func aPasskeyNameBreakingTheRulesIsRefused(_ name: String) throws {
        let account = try client.register("dave-\(name.unicodeScalars.count)")
        let path = "/me/passkeys/" + Base64URL.encode(account.credential.id)
        let reply = try client.send(
            "PATCH",
            path,
            json: try JSONEncoder().encode(["name": name]).map { $0 },
            headers: PasskeyClient.bearer(account.token)
        )
        #expect(reply.status == 400)
        #expect(reply.object["member"] as? String == "name")
    }

    @Test func namesAreNFKCAndLimitedInBytes() throws {
        let account = try client.register("\u{FF46}\u{FF52}\u{FF41}\u{FF4E}\u{FF4B}")  // ｆｒａｎｋ
        #expect(try store.user(id: account.userID)?.name == "frank")
        #expect(try client.requestOptions(username: "frank").allowCredentials.count == 1)
        #expect(try client.requestOptions(username: "\u{FF46}rank").allowCredentials.first?.id == Base64URL.encode(account.credential.id))
        #expect(try client.registrationOptions(username: "frank").errorCode == "username_taken")
        let composed = try client.register("re\u{0301}my")  // decomposed é
        #expect(try store.user(id: composed.userID)?.name == "r\u{00E9}my")
        #expect(try client.registrationOptions(username: String(repeating: "é", count: 32)).status == 200, "64 bytes")
        #expect(try client.registrationOptions(username: "👨‍👩‍👧").status == 400, "a zero-width joiner is a format character")
    }
}
