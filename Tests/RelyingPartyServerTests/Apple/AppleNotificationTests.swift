import CryptoCore
import Foundation
import TestSupport
import Testing

@Suite("POST /auth/apple/notifications")
struct AppleNotificationTests {
    @Test func consentRevokedEndsTheIdentitysSessionsAndKeepsTheLink() throws {
        let fixture = try AppleFixture()
        let first = try fixture.signInFresh()
        let second = try fixture.signInFresh()
        let userID = try AppleFixture.userID(first)
        for _ in 0..<2 {
            let reply = try fixture.notify(AppleFixture.event("consent-revoked"))
            #expect(reply.status == 200)
        }
        for reply in [first, second] {
            let token = try #require(reply.object["token"] as? String)
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)
        }
        let identity = try #require(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject))
        #expect(identity.consentRevoked && identity.userID == userID, "revocation is not deletion: the link stays, marked")
        #expect(try fixture.store.user(id: userID) != nil, "the account itself stays")
    }

    @Test func accountDeleteDeletesAnAccountWithNoOtherWayIn() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        let userID = try AppleFixture.userID(reply)
        for _ in 0..<2 {
            #expect(try fixture.notify(AppleFixture.event("account-delete")).status == 200)
        }
        #expect(try fixture.store.user(id: userID) == nil)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) == nil)
    }

    @Test func emailEventsUpdateTheStoredState() throws {
        let fixture = try AppleFixture()
        try fixture.signInFresh()
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true)).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true)
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true)).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true)
        #expect(try fixture.notify(AppleFixture.event("email-enabled", email: true)).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == false)
    }

    @Test(arguments: ["consent-revoked", "account-delete", "email-disabled", "email-enabled"])
    func anUnknownSubjectIsStill200(_ type: String) throws {
        let fixture = try AppleFixture()
        #expect(try fixture.notify(AppleFixture.event(type, subject: "999.unknown", email: true)).status == 200)
    }

    @Test func anUnsupportedButVerifiedEventIs200() throws {
        let fixture = try AppleFixture()
        #expect(try fixture.notify(AppleFixture.event("something-new")).status == 200)
        #expect(fixture.log.contains("apple notification ignored: notification.unsupportedEvent"))
    }

    @Test func unverifiableBodiesAreRefused() throws {
        let fixture = try AppleFixture()
        let reference = try fixture.signInFresh()
        let now = fixture.clock.now
        let claims = try AppleTokenMinter.notificationClaims(now: now, event: AppleFixture.event("account-delete"))
        var wrongAudience = claims
        wrongAudience["aud"] = "com.example.other"
        var expired = claims
        expired["exp"] = Int(now.timeIntervalSince1970) - 600
        let cases: [(payload: String?, body: String?, status: Int)] = [
            (nil, "not json", 400),
            (nil, #"{"other": 1}"#, 400),
            ("a.b", nil, 400),
            (try AppleTokenMinter.sign(claims, keyID: AppleTestKeys.primaryKeyID, key: AppleTestKeys.shared.outsider), nil, 401),
            (try AppleTokenMinter.sign(wrongAudience), nil, 401),
            (try AppleTokenMinter.sign(expired), nil, 401),
            (try AppleTokenMinter.hmacForgery(claims), nil, 401),
        ]
        for (payload, body, status) in cases {
            let bytes = try body.map { Array($0.utf8) } ?? AppleTokenMinter.json(["payload": payload ?? ""])
            let reply = try fixture.client.send("POST", "/auth/apple/notifications", json: bytes)
            #expect(reply.status == status, "\(body ?? payload ?? "")")
            // A body that is not JSON at all is invalid_json, as on every endpoint (issue 15: strict JSON first).
            #expect(reply.errorCode == (body == "not json" ? "invalid_json" : "invalid_notification"))
        }
        #expect(try fixture.store.user(id: try AppleFixture.userID(reference)) != nil)
    }
}
