import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Issue 43 item 10: `PATCH /admin/users/{id} {"disabled": true}` ends every session and refuses every way in with
/// `403 account_disabled`, told only to whoever proved to be the account; `user.disabled` / `user.enabled`; every user
/// JSON, the export and imports carry `disabled`.
struct DisabledAccountTests {
    let api: AdminAPITests

    init() throws {
        api = try AdminAPITests()
    }

    func path(_ userID: [UInt8]) -> String { "/admin/users/" + Base64URL.encode(userID) }

    func setDisabled(_ userID: [UInt8], _ disabled: Bool) throws -> ServerReply {
        try api.call("PATCH", path(userID), #"{"disabled": \#(disabled)}"#)
    }

    func me(_ token: String) throws -> ServerReply {
        try api.client.send("GET", "/me", headers: PasskeyClient.bearer(token))
    }

    @Test func disablingEndsEverySessionAndRefusesThePasskeyUntilEnabled() throws {
        let alice = try api.client.register("alice")
        let bob = try api.client.register("bob")
        let second = try api.client.signIn(alice.credential, AssertionOptions(signCount: 1))
        let secondToken = try #require(second.object["token"] as? String)
        let disabled = try setDisabled(alice.userID, true)
        #expect(disabled.status == 200, "\(disabled.text)")
        #expect((disabled.object["user"] as? [String: Any])?["disabled"] as? Bool == true)
        // Both sessions ended at once, and an access token minted from one would need it.
        for token in [alice.token, secondToken] {
            #expect(try me(token).errorCode == "not_signed_in")
        }
        #expect(try me(bob.token).status == 200, "another account is untouched")
        // A verified passkey gets the stable code; nothing was recorded for it.
        let refused = try api.client.signIn(alice.credential, AssertionOptions(signCount: 2))
        #expect(refused.status == 403 && refused.errorCode == "account_disabled", "\(refused.text)")
        #expect(try api.store.credential(id: alice.credential.id)?.signCount == 1)
        #expect((try api.call("GET", path(alice.userID)).object["sessions"] as? [Any])?.isEmpty == true, "no live session")
        let events = try api.store.allEvents().filter { $0.userID == alice.userID }.map(\.type)
        #expect(events.suffix(3) == ["session.revoked", "session.revoked", "user.disabled"], "\(events)")
        let revoked = try api.store.allEvents().filter { $0.type == "session.revoked" }
        #expect(revoked.allSatisfy { String(decoding: $0.data, as: UTF8.self).contains(#""reason":"user_disabled""#) })
        // Enabled again: the passkey signs in, `user.enabled`.
        #expect(try setDisabled(alice.userID, false).status == 200)
        let back = try api.client.signIn(alice.credential, AssertionOptions(signCount: 3))
        #expect(back.status == 200, "\(back.text)")
        #expect((back.object["user"] as? [String: Any])?["disabled"] as? Bool == false)
        #expect(try api.store.allEvents().contains { $0.type == "user.enabled" && $0.userID == alice.userID })
        // The same value twice changes nothing and writes no event.
        let count = try api.store.allEvents().count
        #expect(try setDisabled(alice.userID, false).status == 200)
        #expect(try api.store.allEvents().count == count)
    }

    @Test func aStrangerLearnsNothingARecoveryCodeHolderLearnsItIsDisabled() throws {
        let alice = try api.client.register("alice")
        let made = try api.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(alice.token))
        let codes = try #require(made.object["codes"] as? [String])
        #expect(try setDisabled(alice.userID, true).status == 200)
        func recover(_ username: String, _ code: String) throws -> ServerReply {
            try api.client.send("POST", "/auth/recovery", json: Array(#"{"username": "\#(username)", "code": "\#(code)"}"#.utf8))
        }
        // A wrong code for the disabled account reads as one for an unknown username.
        let wrong = try recover("alice", "AAAAA-AAAAA")
        let unknown = try recover("nobody", "AAAAA-AAAAA")
        #expect(wrong.status == unknown.status && wrong.errorCode == unknown.errorCode && wrong.errorCode == "recovery_code_invalid")
        // The passkey sign-in's options for the disabled account look like anyone's.
        let (known, stranger) = (try api.client.authenticationOptions(username: "alice"), try api.client.authenticationOptions(username: "nobody"))
        #expect(known.status == 200 && stranger.status == 200 && Set(known.object.keys) == Set(stranger.object.keys))
        // The right code: refused, and not used up.
        let right = try recover("alice", codes[0])
        #expect(right.status == 403 && right.errorCode == "account_disabled", "\(right.text)")
        #expect(try setDisabled(alice.userID, false).status == 200)
        #expect(try recover("alice", codes[0]).status == 200, "the code still works once enabled")
    }

    @Test func anEnrollmentLinkRegistersNothingForADisabledAccount() throws {
        let created = try api.call("POST", "/admin/users", #"{"username": "invited"}"#)
        let id = try #require((created.object["user"] as? [String: Any])?["id"] as? String)
        let userID = try PasskeyClient.bytes(id)
        let link = try api.call("POST", path(userID) + "/enrollment-links")
        let url = try #require(link.object["url"] as? String)
        let token = String(try #require(url.split(separator: "=").last))
        #expect(try setDisabled(userID, true).status == 200)
        let options = try api.client.post("/webauthn/registration/options", ["enrollmentToken": token])
        #expect(options.status == 200, "\(options.text)")
        let creation = try options.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (credential, response) = try api.client.answer(creation)
        let refused = try api.client.registrationVerify(response)
        #expect(refused.status == 403 && refused.errorCode == "account_disabled", "\(refused.text)")
        #expect(try api.store.credential(id: credential.id) == nil)
    }

    @Test func theExportCarriesDisabledAndAnImportSetsIt() throws {
        let alice = try api.client.register("alice")
        #expect(try setDisabled(alice.userID, true).status == 200)
        let export = try api.call("GET", "/admin/export").text
        let userLine = try #require(export.split(separator: "\n").first { $0.contains(#""type":"user""#) })
        #expect(userLine.contains(#""disabled":true"#))
        // Importing the line with `disabled: false` enables the account (`user.enabled`); without the member it is left.
        func importing(_ line: String) throws -> ServerReply {
            let header = try #require(export.split(separator: "\n").first)
            return try api.admin.send(
                "POST",
                "/admin/import",
                json: Array((header + "\n" + line + "\n").utf8),
                headers: AdminAPITests.key + [("Content-Type", "application/x-ndjson")]
            )
        }
        let kept = try importing(userLine.replacingOccurrences(of: #""disabled":true,"#, with: ""))
        #expect(kept.status == 200, "\(kept.text)")
        #expect(try api.store.user(id: alice.userID)?.disabled == true)
        let enabled = try importing(userLine.replacingOccurrences(of: #""disabled":true"#, with: #""disabled":false"#))
        #expect(enabled.status == 200, "\(enabled.text)")
        #expect(try api.store.user(id: alice.userID)?.disabled == false)
        #expect(try api.store.allEvents().last?.type == "user.enabled")
        // A misspelled member of an import line is refused with its line, never dropped: the account stays enabled.
        let misspelled = try importing(userLine.replacingOccurrences(of: #""disabled":true"#, with: #""disabeld":true"#))
        #expect(misspelled.status == 400 && misspelled.errorCode == "unknown_member", "\(misspelled.text)")
        #expect(misspelled.object["member"] as? String == "disabeld" && misspelled.object["line"] as? Int == 2)
        #expect(try api.store.user(id: alice.userID)?.disabled == false)
        // A null member is one the type reads (an absent optional), and every other line of the export is taken.
        #expect(try importing(userLine.replacingOccurrences(of: #""disabled":true"#, with: #""disabled":null"#)).status == 200)
        let whole = try api.admin.send(
            "POST",
            "/admin/import",
            json: Array(export.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/x-ndjson")]
        )
        #expect(whole.status == 200, "\(whole.text)")
    }

    @Test func aNewAccountCannotStartDisabled() throws {
        let reply = try api.call("POST", "/admin/users", #"{"username": "carol", "disabled": true}"#)
        #expect(reply.status == 400 && reply.errorCode == "invalid_request" && reply.object["member"] as? String == "disabled")
    }
}
