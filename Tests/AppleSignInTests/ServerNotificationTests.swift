import AppleSignIn
import CryptoCore
import Foundation
import Testing

/// Server-to-server notifications: the JWS passes the identity token rules, and `events` is a JSON string holding
/// one event object.
@Suite struct ServerNotificationTests {
    let issuer = TestIssuer.shared
    static let subject = "001234.0123456789abcdef0123456789abcdef.0001"
    /// event_time of the synthetic events, in milliseconds as genuine notifications send it.
    static let eventMilliseconds = 1_767_225_590_123

    /// The claims of a notification at `TestIssuer.now` carrying `event` serialized as a string.
    private func claims(event: [String: Any]) throws -> [String: Any] {
        let now = Int(TestIssuer.now.timeIntervalSince1970)
        return [
            "iss": "https://appleid.apple.com", "aud": TestIssuer.bundleID, "iat": now, "exp": now + 86_400,
            "jti": "B94OdD03pFsaYaN-Ftv7mA", "events": String(decoding: try TestIssuer.json(event), as: UTF8.self),
        ]
    }

    private func event(_ type: String) -> [String: Any] {
        [
            "type": type, "sub": Self.subject, "event_time": Self.eventMilliseconds, "email": "user@privaterelay.appleid.com",
            "is_private_email": "true",
        ]
    }

    private func body(_ claims: [String: Any], key: PrivateKey? = nil) throws -> [UInt8] {
        let jws = try issuer.sign(claims: claims, header: ["kid": TestIssuer.primaryKeyID, "alg": "RS256"], key: key ?? issuer.primary)
        return try TestIssuer.json(["payload": jws])
    }

    private func verify(_ body: [UInt8], at time: Date = TestIssuer.now) throws -> ServerNotification {
        try ServerNotification(body: body, verifier: TestIssuer.verifier(at: time), keys: try issuer.keySet())
    }

    private func failure(_ body: [UInt8], at time: Date = TestIssuer.now) throws -> AppleSignInError.Code? {
        do {
            _ = try verify(body, at: time)
            return nil
        } catch let error as AppleSignInError {
            return error.code
        }
    }

    @Test func eachEventTypeIsParsed() throws {
        let time = Date(timeIntervalSince1970: 1_767_225_590.123)
        let email = "user@privaterelay.appleid.com"
        let expected: [(String, ServerNotificationEvent)] = [
            ("consent-revoked", .consentRevoked(subject: Self.subject, time: time)),
            ("account-delete", .accountDeleted(subject: Self.subject, time: time)),
            ("email-disabled", .emailDisabled(subject: Self.subject, email: email, isPrivateEmail: true, time: time)),
            ("email-enabled", .emailEnabled(subject: Self.subject, email: email, isPrivateEmail: true, time: time)),
        ]
        for (type, expectedEvent) in expected {
            let notification = try verify(try body(claims(event: event(type))))
            #expect(notification.event == expectedEvent, "\(type)")
            #expect(notification.event.subject == Self.subject)
            #expect(abs(notification.event.time.timeIntervalSince(time)) < 0.001)
            #expect(notification.issuer == "https://appleid.apple.com")
            #expect(notification.audiences == [TestIssuer.bundleID])
            #expect(notification.jwtID == "B94OdD03pFsaYaN-Ftv7mA")
        }
    }

    @Test func eventTimeInSecondsIsAccepted() throws {
        var seconds = event("consent-revoked")
        seconds["event_time"] = 1_767_225_590
        #expect(try verify(try body(claims(event: seconds))).event.time == Date(timeIntervalSince1970: 1_767_225_590))
    }

    @Test func emailFlagMayBeABooleanOrAbsent() throws {
        var boolean = event("email-enabled")
        boolean["is_private_email"] = false
        #expect(
            try verify(try body(claims(event: boolean))).event
                == .emailEnabled(
                    subject: Self.subject,
                    email: "user@privaterelay.appleid.com",
                    isPrivateEmail: false,
                    time: Date(timeIntervalSince1970: 1_767_225_590.123)
                )
        )
        var absent = event("email-disabled")
        absent["is_private_email"] = nil
        guard case .emailDisabled(_, _, let isPrivateEmail, _) = try verify(try body(claims(event: absent))).event else {
            Issue.record("not an email-disabled event")
            return
        }
        #expect(isPrivateEmail == nil)
    }

    @Test func badSignatureIsRefused() throws {
        #expect(try failure(try body(claims(event: event("account-delete")), key: issuer.outsider)) == .invalidSignature)
        let jws = try issuer.sign(
            claims: claims(event: event("account-delete")),
            header: ["kid": TestIssuer.primaryKeyID, "alg": "RS256"],
            key: issuer.primary
        )
        let flipped = TestIssuer.editParts(jws) { parts in
            var signature = Base64URL.decode(parts[2]) ?? []
            signature[0] ^= 0x80
            parts[2] = Base64URL.encode(signature)
        }
        #expect(try failure(try TestIssuer.json(["payload": flipped])) == .invalidSignature)
    }

    @Test func unsignedNotificationIsRefused() throws {
        let header = Base64URL.encode(try TestIssuer.json(["kid": TestIssuer.primaryKeyID, "alg": "none"]))
        let payload = Base64URL.encode(try TestIssuer.json(claims(event: event("account-delete"))))
        #expect(try failure(try TestIssuer.json(["payload": "\(header).\(payload)."])) == .unsupportedAlgorithm)
    }

    @Test func issuerAudienceAndTimesAreChecked() throws {
        var wrongIssuer = try claims(event: event("consent-revoked"))
        wrongIssuer["iss"] = "https://evil.example"
        #expect(try failure(try body(wrongIssuer)) == .wrongIssuer)
        var wrongAudience = try claims(event: event("consent-revoked"))
        wrongAudience["aud"] = "com.example.other"
        #expect(try failure(try body(wrongAudience)) == .wrongAudience)
        let valid = try body(claims(event: event("consent-revoked")))
        #expect(try failure(valid, at: TestIssuer.now.addingTimeInterval(86_400 + 60)) == .expired)
        #expect(try failure(valid, at: TestIssuer.now.addingTimeInterval(-61)) == .issuedInFuture)
        var withoutExpiry = try claims(event: event("consent-revoked"))
        withoutExpiry["exp"] = nil
        #expect(try failure(try body(withoutExpiry)) == .appleTokenMalformed)
    }

    @Test func bodyThatIsNotAPayloadObjectIsMalformed() throws {
        for text in ["", "not json", "[]", #"{"payload": 5}"#, #"{"signedPayload": "a.b.c"}"#] {
            #expect(try failure(Array(text.utf8)) == .notificationMalformed, "\(text)")
        }
        #expect(try failure(Array(repeating: 0x20, count: ServerNotification.maximumBodyLength + 1)) == .notificationMalformed)
        #expect(try failure(try TestIssuer.json(["payload": "a.b"])) == .appleTokenMalformed)
    }

    @Test func eventsMustBeAStringHoldingAnEventObject() throws {
        var object = try claims(event: event("consent-revoked"))
        object["events"] = event("consent-revoked")
        #expect(try failure(try body(object)) == .appleTokenMalformed)
        var missing = try claims(event: event("consent-revoked"))
        missing["events"] = nil
        #expect(try failure(try body(missing)) == .appleTokenMalformed)
        for text in [
            "not json", "[]", "{}", #"{"type":"consent-revoked","event_time":1}"#, #"{"type":"consent-revoked","sub":"","event_time":1}"#,
            #"{"type":"consent-revoked","sub":"s","event_time":"1"}"#, #"{"type":"consent-revoked","sub":"s","event_time":-1}"#,
            #"{"type":"email-disabled","sub":"s","event_time":1}"#, #"{"type":"email-enabled","sub":"s","event_time":1,"email":""}"#,
            #"{"type":"email-enabled","sub":"s","event_time":1,"email":"e","is_private_email":"yes"}"#,
        ] {
            var edited = try claims(event: [:])
            edited["events"] = text
            #expect(try failure(try body(edited)) == .notificationMalformed, "\(text)")
        }
    }

    @Test func unknownEventTypeIsRefused() throws {
        for type in ["consent-granted", "Account-Delete", ""] {
            #expect(try failure(try body(claims(event: event(type)))) == .unsupportedEvent, "\(type)")
        }
    }
}
