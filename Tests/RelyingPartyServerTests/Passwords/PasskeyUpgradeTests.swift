import ConfigurationReading
import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer
@testable import Storage

/// The automatic passkey upgrade: right after a password sign-in, a conditional registration (`"mediation":
/// "conditional"`) adds a passkey without a user-presence test, as WebAuthn Level 3 §7.1 step 15 allows for it and for
/// nothing else.
struct PasskeyUpgradeTests {
    let passwords: PasswordSignInTests
    let bcrypt = PasswordSignInTests.fixture("bcrypt $2b$")

    init(configuration: String = AdminAPITests.configuration) throws {
        passwords = try PasswordSignInTests(configuration: configuration)
        _ = try passwords.importLines(PasswordSignInTests.importFile([("ada", nil, bcrypt.hash)]))
    }

    init(passwords: PasswordSignInTests) throws {
        self.passwords = passwords
    }

    var client: PasskeyClient { passwords.client }

    func passwordSession() throws -> String {
        let reply = try passwords.signIn(["username": "ada", "password": bcrypt.password])
        return try #require(reply.object["token"] as? String)
    }

    /// Options (with `mediation` when given) and a registration answered with `flags`.
    func register(token: String, mediation: String?, flags: AuthenticatorFlags) throws -> (options: ServerReply, verify: ServerReply?) {
        let options = try client.post(
            "/webauthn/registration/options",
            mediation.map { ["mediation": $0] } ?? [:],
            headers: PasskeyClient.bearer(token)
        )
        guard options.status == 200 else { return (options, nil) }
        let creation = try options.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let credential = try SoftwareCredential.generate(.es256, userHandle: try PasskeyClient.bytes(creation.user.id))
        let response = try client.authenticator.register(
            credential,
            challenge: try PasskeyClient.bytes(creation.challenge),
            options: RegistrationOptions(flags: flags)
        )
        return (options, try client.registrationVerify(response, headers: PasskeyClient.bearer(token)))
    }

    @Test func aFreshPasswordSessionUpgradesWithoutAUserPresenceTest() throws {
        let token = try passwordSession()
        let (_, verify) = try register(token: token, mediation: "conditional", flags: [.userVerified, .attestedCredentialData])
        let reply = try #require(verify)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["upgrade"] as? Bool == true && reply.object["verified"] as? Bool == true)
        let user = try #require(try passwords.store.user(name: "ada"))
        #expect(try passwords.store.credentials(userID: user.id).count == 1)
        let registered = try #require(try passwords.store.allEvents().last { $0.type == "passkey.registered" })
        #expect(String(decoding: registered.data, as: UTF8.self).contains(#""upgrade":true"#))
    }

    @Test func userPresenceIsRequiredEverywhereElse() throws {
        let token = try passwordSession()
        // The same session, options without mediation: UP clear is refused at §7.1 step 15.
        let (_, verify) = try register(token: token, mediation: nil, flags: [.userVerified, .attestedCredentialData])
        let refused = try #require(verify)
        #expect(refused.status == 400 && refused.object["step"] as? String == WebAuthnError.Code.userNotPresent.rawValue, "\(refused.text)")
        // A modal registration with UP set works for the same session, and is no upgrade.
        let modal = try #require(try register(token: token, mediation: nil, flags: [.userPresent, .userVerified, .attestedCredentialData]).verify)
        #expect(modal.status == 200 && modal.object["upgrade"] == nil)
    }

    @Test func conditionalRegistrationNeedsAFreshPasswordSession() throws {
        #expect(try register(token: "no-session", mediation: "conditional", flags: []).options.errorCode == "not_signed_in")
        #expect(try client.post("/webauthn/registration/options", ["mediation": "conditional", "username": "new"]).errorCode == "not_signed_in")
        let token = try passwordSession()
        #expect(try register(token: token, mediation: "silent", flags: []).options.errorCode == "invalid_request")
        // A passkey session is no password sign-in.
        let passkeyAccount = try client.register("bob")
        let passkey = try register(token: passkeyAccount.token, mediation: "conditional", flags: []).options
        #expect(passkey.status == 403 && passkey.errorCode == "passkey_upgrade_not_allowed")
        // Past passwords.upgradeWindowSeconds (5 minutes by default).
        passwords.clock.advance(by: 301)
        let late = try register(token: token, mediation: "conditional", flags: []).options
        #expect(late.status == 403 && late.errorCode == "passkey_upgrade_not_allowed")
    }

    @Test func upgradeOnlySessionsMayOnlyAddAPasskey() throws {
        let configuration = AdminAPITests.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "passwords": {"session": "upgradeOnly"}, \#(TokenFixture.backends),"#
        )
        let test = try PasskeyUpgradeTests(configuration: configuration)
        let reply = try test.passwords.signIn(["username": "ada", "password": test.bcrypt.password])
        #expect(reply.status == 200 && reply.object["restricted"] as? Bool == true)
        #expect(reply.object["accessToken"] == nil && reply.headers["Set-Cookie"] == nil, "a bearer token only")
        let token = try #require(reply.object["token"] as? String)
        let bearer = PasskeyClient.bearer(token)
        #expect(try test.client.send("GET", "/me", headers: bearer).status == 200)
        for (method, path) in [("GET", "/me/passkeys"), ("POST", "/session/token"), ("GET", "/me/sessions"), ("DELETE", "/me")] {
            let refused = try test.client.send(method, path, headers: bearer)
            #expect(refused.status == 403 && refused.errorCode == "password_session_restricted", "\(method) \(path)")
        }
        #expect(try TokenFixture.introspect(token, with: test.client).object["active"] as? Bool == false, "speaks for nobody to a backend")
        // It may add a passkey, silently too; the passkey's session is a full one.
        let upgraded = try #require(try test.register(token: token, mediation: "conditional", flags: [.attestedCredentialData]).verify)
        #expect(upgraded.status == 200 && upgraded.object["upgrade"] as? Bool == true, "\(upgraded.text)")
        let full = try #require(upgraded.object["token"] as? String)
        #expect(try test.client.send("GET", "/me/passkeys", headers: PasskeyClient.bearer(full)).status == 200)
        #expect(try TokenFixture.introspect(full, with: test.client).object["active"] as? Bool == true)
    }

    @Test(arguments: [false, true])
    func retireDeletesTheHashWithThePasskeyAndKeepKeepsIt(retire: Bool) throws {
        let configuration = AdminAPITests.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "passwords": {"afterUpgrade": "\#(retire ? "retire" : "keep")"},"#
        )
        let test = try PasskeyUpgradeTests(configuration: configuration)
        let user = try #require(try test.passwords.store.user(name: "ada"))
        let verify = try #require(
            try test.register(token: try test.passwordSession(), mediation: "conditional", flags: [.attestedCredentialData]).verify
        )
        #expect(verify.status == 200, "\(verify.text)")
        let hash = try test.passwords.store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: user.id) }
        #expect((hash == nil) == retire)
        let again = try test.passwords.signIn(["username": "ada", "password": test.bcrypt.password])
        #expect(again.status == (retire ? 401 : 200))
    }

    @Test func retireAlsoEndsTheHashWhenAnEnrollmentLinkAddsThePasskey() throws {
        let configuration = AdminAPITests.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "passwords": {"afterUpgrade": "retire"},"#
        )
        let test = try PasskeyUpgradeTests(configuration: configuration)
        let user = try #require(try test.passwords.store.user(name: "ada"))
        let link = try test.passwords.admin.send("POST", "/admin/users/\(Base64URL.encode(user.id))/enrollment-links", headers: AdminAPITests.key)
        let url = try #require(link.object["url"] as? String)
        let token = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "token" }?.value)
        let options = try test.client.post("/webauthn/registration/options", ["enrollmentToken": token]).decode(
            PublicKeyCredentialCreationOptionsJSON.self
        )
        let (_, response) = try test.client.answer(options)
        #expect(try test.client.registrationVerify(response).status == 200)
        #expect(try test.passwords.store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: user.id) } == nil)
    }

    /// `retireAfterDays` with `keep`: the password keeps working beside the passkey for that many days, then signs nobody
    /// in; its hash is deleted at that attempt, or by the periodic purge for an account that never tries again.
    @Test func retireAfterDaysEndsThePasswordThatLongAfterThePasskey() throws {
        let configuration = AdminAPITests.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "passwords": {"retireAfterDays": 30},"#
        )
        let passwords = try PasswordSignInTests(configuration: configuration)
        _ = try passwords.importLines(PasswordSignInTests.importFile([("ada", nil, bcrypt.hash), ("bob", nil, bcrypt.hash)]))
        let test = try PasskeyUpgradeTests(passwords: passwords)
        for name in ["ada", "bob"] {
            let token = try #require(try passwords.signIn(["username": name, "password": bcrypt.password]).object["token"] as? String)
            #expect(try test.register(token: token, mediation: "conditional", flags: [.attestedCredentialData]).verify?.status == 200)
        }
        func hasHash(_ name: String) throws -> Bool {
            let user = try #require(try passwords.store.user(name: name))
            return try passwords.store.transaction { transaction throws(StorageError) in try transaction.passwordHash(userID: user.id) } != nil
        }
        passwords.clock.advance(by: 29 * 86_400)
        #expect(try passwords.signIn(["username": "ada", "password": bcrypt.password]).status == 200, "kept for 30 days")
        passwords.clock.advance(by: 2 * 86_400)
        let retired = try passwords.signIn(["username": "ada", "password": bcrypt.password])
        #expect(retired.status == 401 && retired.errorCode == "password_invalid", "the right password no longer signs in")
        #expect(try !hasHash("ada"), "deleted at the attempt")
        #expect(try hasHash("bob"), "until the purge")
        // A stored challenge (a sign-in naming its account) runs the purge that is due.
        #expect(try passwords.client.post("/webauthn/authentication/options", ["username": "ada"]).status == 200)
        #expect(try !hasHash("bob"), "the periodic purge retired it")
    }

    @Test func retireAfterDaysIsBoundedAndOnlyForKeep() throws {
        for (passwords, message) in [
            (#"{"retireAfterDays": 0}"#, "must be a whole number from 1 to 3650"),
            (
                #"{"afterUpgrade": "retire", "retireAfterDays": 30}"#,
                "applies to afterUpgrade keep: with retire the hash already goes with the first passkey"
            ),
        ] {
            #expect(throws: ConfigurationError(.invalidValue, key: "passwords.retireAfterDays", message)) {
                try TestServerFactory.configuration(#"{"passwords": \#(passwords)}"#)
            }
        }
        #expect(
            try TestServerFactory.configuration(#"{"passwords": {"afterUpgrade": "keep", "retireAfterDays": 3650}}"#).passwords.retireAfterDays
                == 3650
        )
    }
}
