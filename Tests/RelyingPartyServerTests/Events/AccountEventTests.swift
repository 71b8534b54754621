import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// What an event row of the outbox says, as a test compares it: the type, the account and every payload member.
struct EventRow: Equatable, CustomStringConvertible {
    let type: String
    let userID: [UInt8]?
    let payload: [String: String]

    init(_ type: String, _ userID: [UInt8], _ payload: [String: String]) {
        self.type = type
        self.userID = userID
        self.payload = payload.merging(["userId": Base64URL.encode(userID)]) { own, _ in own }
    }

    init(_ record: EventRecord) throws {
        type = record.type
        userID = record.userID
        let object = try #require(try JSONSerialization.jsonObject(with: Data(record.data)) as? [String: Any])
        // Every member is a string but the Booleans (the only numbers payloads carry) and `changes` (a list of member
        // names, compared here joined with commas).
        payload = object.mapValues { value in
            (value as? String) ?? (value as? [String])?.joined(separator: ",") ?? ((value as? NSNumber)?.boolValue == true ? "true" : "false")
        }
    }

    var description: String { "\(type) \(payload)" }
}

/// Reads a store's outbox from where the last read stopped.
final class EventCursor {
    let store: any PasskeyStore
    private var last: Int64 = 0

    init(_ store: any PasskeyStore) {
        self.store = store
    }

    /// The events appended since the last call.
    func next() throws -> [EventRow] {
        let records = try store.events(after: last, limit: 1_000)
        last = records.last?.id ?? last
        return try records.map(EventRow.init)
    }
}

/// Every change the server makes writes its event, in the same transaction; a change that fails writes none. The
/// payloads name what changed and never carry a token, key, challenge, email address or name.
struct AccountEventTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient
    let events: EventCursor

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
        events = EventCursor(store)
    }

    /// The public ID of the session a token opens, base64url.
    func sessionID(_ token: String) throws -> String {
        let session = try #require(try store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(token.utf8)), now: clock.now))
        return Base64URL.encode(session.id)
    }

    @Test func registeringAnAccountWritesUserCreatedPasskeyRegisteredAndSessionCreated() throws {
        let account = try client.register("alice")
        let credentialID = Base64URL.encode(account.credential.id)
        #expect(
            try events.next() == [
                EventRow("user.created", account.userID, ["method": "passkey"]),
                EventRow("passkey.registered", account.userID, ["credentialId": credentialID]),
                EventRow(
                    "session.created",
                    account.userID,
                    ["sessionId": try sessionID(account.token), "method": "passkey", "credentialId": credentialID]
                ),
            ]
        )
        // A second registration of the same name fails at verify: no event.
        let options = try client.registrationOptions(username: "bob").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let racing = try client.registrationOptions(username: "bob").decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(try client.registrationVerify(try client.answer(options).response).status == 200)
        _ = try events.next()
        #expect(try client.registrationVerify(try client.answer(racing).response).errorCode == "username_taken")
        #expect(try events.next() == [])
    }

    @Test func addingAPasskeyWritesPasskeyRegisteredAndSessionCreated() throws {
        let account = try client.register("alice")
        _ = try events.next()
        let second = try client.addPasskey(token: account.token)
        let rows = try events.next()
        #expect(rows.map(\.type) == ["passkey.registered", "session.created"])
        #expect(rows.first == EventRow("passkey.registered", account.userID, ["credentialId": Base64URL.encode(second.id)]))
        #expect(rows.last?.payload["credentialId"] == Base64URL.encode(second.id))
        #expect(rows.last?.payload["method"] == "passkey")
    }

    @Test func signingInWritesSessionCreated() throws {
        let account = try client.register("alice")
        _ = try events.next()
        let reply = try client.signIn(account.credential)
        let token = try #require(reply.object["token"] as? String)
        #expect(
            try events.next() == [
                EventRow(
                    "session.created",
                    account.userID,
                    ["sessionId": try sessionID(token), "method": "passkey", "credentialId": Base64URL.encode(account.credential.id)]
                )
            ]
        )
        // A refused assertion (another passkey's signature) writes nothing.
        let other = try client.register("bob")
        _ = try events.next()
        var forged = try client.assertion(account.credential, answering: try client.requestOptions())
        forged.rawId = Base64URL.encode(other.credential.id)
        forged.id = forged.rawId
        #expect(try client.authenticationVerify(forged).status == 400)
        #expect(try events.next() == [])
    }

    @Test func aChangedBackupEligibilityWritesItsEvent() throws {
        let account = try client.register("alice")
        _ = try events.next()
        let reply = try client.signIn(account.credential, AssertionOptions(flags: [.userPresent, .userVerified, .backupEligible], signCount: 0))
        #expect(reply.status == 200)
        let credentialID = Base64URL.encode(account.credential.id)
        let session = try sessionID(try #require(reply.object["token"] as? String))
        #expect(
            try events.next() == [
                EventRow("session.created", account.userID, ["sessionId": session, "method": "passkey", "credentialId": credentialID]),
                EventRow("passkey.backup_eligibility_changed", account.userID, ["credentialId": credentialID, "backupEligible": "true"]),
            ]
        )
    }

    @Test func aCounterThatWentBackWritesCloneWarningAndNoSession() throws {
        let account = try client.register("alice")
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 5)).status == 200)
        _ = try events.next()
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 4)).errorCode == "possible_clone")
        #expect(
            try events.next() == [EventRow("passkey.clone_warning", account.userID, ["credentialId": Base64URL.encode(account.credential.id)])]
        )
    }

    @Test func renamingAndDeletingAPasskeyWriteTheirEvents() throws {
        let account = try client.register("alice")
        let second = try client.addPasskey(token: account.token)
        _ = try events.next()
        let path = "/me/passkeys/" + Base64URL.encode(second.id)
        let bearer = PasskeyClient.bearer(account.token)
        #expect(try client.send("PATCH", path, json: Array(#"{"name":"Phone"}"#.utf8), headers: bearer).status == 200)
        #expect(try events.next() == [EventRow("passkey.renamed", account.userID, ["credentialId": Base64URL.encode(second.id)])])
        // The session the second passkey made when it was added ends with it.
        let madeBySecond = try store.transaction { transaction throws(StorageError) in
            try transaction.sessions(userID: account.userID, now: clock.now)
        }
        .filter { $0.credentialID == second.id }.map { Base64URL.encode($0.id) }
        #expect(madeBySecond.count == 1)
        #expect(try client.send("DELETE", path, headers: bearer).status == 200)
        #expect(
            try events.next() == [
                EventRow("passkey.deleted", account.userID, ["credentialId": Base64URL.encode(second.id)]),
                EventRow(
                    "session.revoked",
                    account.userID,
                    ["sessionId": madeBySecond[0], "method": "passkey", "credentialId": Base64URL.encode(second.id), "reason": "passkey_deleted"]
                ),
            ]
        )
        // Unknown passkeys and the last passkey change nothing and write nothing.
        #expect(try client.send("PATCH", path, json: Array(#"{"name":"x"}"#.utf8), headers: bearer).status == 404)
        #expect(try client.send("DELETE", path, headers: bearer).status == 404)
        #expect(try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(account.credential.id), headers: bearer).status == 409)
        #expect(try events.next() == [])
    }

    @Test func signingOutWritesSessionRevoked() throws {
        let account = try client.register("alice")
        _ = try events.next()
        let session = try sessionID(account.token)
        #expect(try client.send("POST", "/logout", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(
            try events.next() == [
                EventRow(
                    "session.revoked",
                    account.userID,
                    ["sessionId": session, "method": "passkey", "credentialId": Base64URL.encode(account.credential.id), "reason": "logout"]
                )
            ]
        )
        #expect(try client.send("POST", "/logout", headers: PasskeyClient.bearer(account.token)).status == 401)
        #expect(try events.next() == [])
    }

    @Test func deletingTheAccountWritesUserDeletedOnly() throws {
        let account = try client.register("alice")
        _ = try client.addPasskey(token: account.token)
        _ = try events.next()
        #expect(try client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try events.next() == [EventRow("user.deleted", account.userID, ["reason": "self"])])
        #expect(try client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status == 401)
        #expect(try events.next() == [])
    }

    @Test func noPayloadCarriesATokenKeyChallengeOrName() throws {
        let account = try client.register("alice-the-user")
        let reply = try client.signIn(account.credential)
        let token = try #require(reply.object["token"] as? String)
        let stored = try #require(try store.credential(id: account.credential.id))
        for record in try store.allEvents() {
            let text = String(decoding: record.data, as: UTF8.self)
            for secret in [account.token, token, Base64URL.encode(stored.publicKey), "alice-the-user"] {
                #expect(!text.contains(secret), "\(record.type)")
            }
            for hash in [account.token, token].map({ DigestAlgorithm.sha256.hash(Array($0.utf8)) }) {
                #expect(!text.contains(Base64URL.encode(hash)), "\(record.type)")
            }
        }
    }
}

/// The Sign in with Apple side: sign-in, link and the four notifications.
struct AppleAccountEventTests {
    @Test func aFirstAppleSignInWritesUserCreatedAppleLinkedAndSessionCreated() throws {
        let fixture = try AppleFixture()
        let events = EventCursor(fixture.store)
        let reply = try fixture.signInFresh()
        let userID = try AppleFixture.userID(reply)
        let token = try #require(reply.object["token"] as? String)
        let session = try #require(try fixture.store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(token.utf8)), now: fixture.clock.now))
        #expect(
            try events.next() == [
                EventRow("user.created", userID, ["method": "apple"]),
                EventRow("apple.linked", userID, ["appleUserId": AppleTokenMinter.subject, "realUserStatus": "likelyReal"]),
                EventRow(
                    "session.created",
                    userID,
                    ["sessionId": Base64URL.encode(session.id), "method": "apple", "appleUserId": AppleTokenMinter.subject]
                ),
            ]
        )
        #expect(session.method == .apple && session.appleSubject == AppleTokenMinter.subject && !session.userVerified)
        // Signing in again writes only the session; a replayed nonce writes nothing.
        let raw = AppleFixture.rawNonce()
        let identityToken = try fixture.identityToken(rawNonce: raw)
        #expect(try fixture.signIn(token: identityToken, rawNonce: raw).status == 200)
        #expect(try events.next().map(\.type) == ["session.created"])
        #expect(try fixture.signIn(token: identityToken, rawNonce: raw).errorCode == "invalid_identity_token")
        #expect(try events.next() == [])
        for record in try fixture.store.allEvents() {
            #expect(!String(decoding: record.data, as: UTF8.self).contains(AppleTokenMinter.email), "\(record.type)")
        }
    }

    @Test func linkingFromAPasskeyAccountWritesAppleLinked() throws {
        let fixture = try AppleFixture()
        let events = EventCursor(fixture.store)
        let alice = try fixture.client.register("alice")
        _ = try events.next()
        #expect(try fixture.signInFresh(headers: PasskeyClient.bearer(alice.token)).status == 200)
        let rows = try events.next()
        #expect(rows.first == EventRow("apple.linked", alice.userID, ["appleUserId": AppleTokenMinter.subject, "realUserStatus": "likelyReal"]))
        #expect(rows.map(\.type) == ["apple.linked", "user.updated", "session.created"])
        #expect(rows[1] == EventRow("user.updated", alice.userID, ["changes": "email"]), "the account had no email: it takes Apple's")
        // The identity is now taken: linking it to another account fails and writes nothing.
        let bob = try fixture.client.register("bob")
        _ = try events.next()
        let raw = AppleFixture.rawNonce()
        let taken = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw, headers: PasskeyClient.bearer(bob.token))
        #expect(taken.errorCode == "apple_identity_taken")
        #expect(try events.next() == [])
    }

    @Test func consentRevokedWritesSessionRevokedPerSessionAndAppleConsentRevoked() throws {
        let fixture = try AppleFixture()
        let events = EventCursor(fixture.store)
        let first = try fixture.signInFresh()
        let second = try fixture.signInFresh()
        let userID = try AppleFixture.userID(first)
        let sessions = try fixture.store.sessions(userID: userID, now: fixture.clock.now)
        _ = try events.next()
        #expect(try fixture.notify(AppleFixture.event("consent-revoked")).status == 200)
        let revoked = sessions.map { session in
            EventRow(
                "session.revoked",
                userID,
                [
                    "sessionId": Base64URL.encode(session.id), "method": "apple", "appleUserId": AppleTokenMinter.subject,
                    "reason": "apple_consent_revoked",
                ]
            )
        }
        #expect(
            try events.next() == [EventRow("apple.consent_revoked", userID, ["appleUserId": AppleTokenMinter.subject])] + revoked + []
        )
        #expect(sessions.count == 2 && second.status == 200)
        #expect(try fixture.notify(AppleFixture.event("consent-revoked")).status == 200)
        #expect(try events.next() == [], "a repeated notification changes nothing")
    }

    @Test func accountDeleteWritesUserDeleted() throws {
        let fixture = try AppleFixture()
        let events = EventCursor(fixture.store)
        let userID = try AppleFixture.userID(try fixture.signInFresh())
        _ = try events.next()
        #expect(try fixture.notify(AppleFixture.event("account-delete")).status == 200)
        #expect(try events.next() == [EventRow("user.deleted", userID, ["reason": "apple_account_deleted", "appleRevocation": "none"])])
        #expect(try fixture.notify(AppleFixture.event("account-delete")).status == 200)
        #expect(try events.next() == [])
    }

    @Test func emailNotificationsWriteAnEventPerChange() throws {
        let fixture = try AppleFixture()
        let events = EventCursor(fixture.store)
        let userID = try AppleFixture.userID(try fixture.signInFresh())
        _ = try events.next()
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true)).status == 200)
        #expect(try events.next() == [EventRow("apple.email_disabled", userID, ["appleUserId": AppleTokenMinter.subject])])
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true)).status == 200)
        #expect(try events.next() == [], "no change, no event")
        #expect(try fixture.notify(AppleFixture.event("email-enabled", email: true)).status == 200)
        #expect(try events.next() == [EventRow("apple.email_enabled", userID, ["appleUserId": AppleTokenMinter.subject])])
        #expect(try fixture.notify(AppleFixture.event("email-enabled", subject: "999.unknown", email: true)).status == 200)
        #expect(try events.next() == [])
    }
}
