import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import JSON
import Observability
import Storage
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// The bodies that write themselves (`DirectJSONBody`) against Foundation's encoder with `JSONBody`'s settings: the
/// same bytes for ordinary text, and the same JSON (member for member) for text that needs escapes, which the two may
/// spell differently (`\b` or `\u0008`).
@Suite struct DirectJSONBodyTests {
    /// `JSONBody.encode` as it is for any `Encodable`: Foundation's encoder, sorted keys, ISO 8601 dates.
    static func foundation<Value: Encodable>(_ value: Value) -> [UInt8] { JSONBody.encode(value) }

    static func parsed(_ bytes: [UInt8]) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    static func user(name: String = "ada", displayName: String = "Ada Lovelace", email: String? = nil) -> UserRecord {
        UserRecord(
            id: Array(repeating: 7, count: 32),
            name: name,
            displayName: displayName,
            appAccountToken: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
            email: email,
            emailVerified: email != nil,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000)
        )
    }

    static func answers() -> [SignedInResponse] {
        var full = SignedInResponse(user: user(email: "ada@example.com"), issued: nil)
        full.verified = true
        full.credentialId = Base64URL.encode(Array(repeating: 9, count: 16))
        full.token = "s3ss10n-t0k3n_abc"
        full.expiresAt = Date(timeIntervalSince1970: 1_800_000_000.999)
        full.accessToken = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"
        full.accessTokenExpiresAt = Date(timeIntervalSince1970: 1_800_000_900.5)
        full.isNewAccount = false
        full.appleUserID = "001234.abcdef.1234"
        full.linkSuggestion = "matching_email"
        full.previousUserId = "AAAA"
        full.restricted = true
        var partial = SignedInResponse(user: user(), issued: nil)
        partial.verified = true
        partial.expiresAt = Date(timeIntervalSince1970: -0.25)
        return [full, partial, SignedInResponse(user: user(), issued: nil)]
    }

    @Test func signedInBodiesAreTheEncodersBytes() throws {
        for answer in Self.answers() {
            let direct = JSONBody.encode(answer)
            #expect(String(decoding: direct, as: UTF8.self) == String(decoding: Self.foundation(answer), as: UTF8.self))
        }
    }

    @Test func textThatNeedsEscapesReadsTheSame() throws {
        for name in ["quote\"back\\slash/", "line\nfeed\ttab\r", "bell\u{7}del\u{7F}\u{8}\u{C}", "é 日本 \u{2028} 😀", ""] {
            var answer = SignedInResponse(user: Self.user(name: name, displayName: name, email: name), issued: nil)
            answer.token = name
            let direct = JSONBody.encode(answer)
            #expect(try Self.parsed(direct) == Self.parsed(Self.foundation(answer)))
            #expect(StrictJSONParser.isStrict(direct))
        }
    }

    @Test func requestOptionsAreTheEncodersBytes() throws {
        let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
        let cases = [
            relyingParty.requestOptions(challenge: Array(repeating: 1, count: 32), allowCredentials: []),
            relyingParty.requestOptions(
                challenge: Array(repeating: 2, count: 32),
                allowCredentials: [
                    PublicKeyCredentialDescriptorJSON(id: Array(repeating: 3, count: 16), transports: ["internal", "hybrid"]),
                    PublicKeyCredentialDescriptorJSON(id: Array(repeating: 4, count: 64), transports: []),
                ],
                userVerification: .required,
                hints: ["client-device", "security-key"],
                timeoutMilliseconds: 120_000
            ),
        ]
        for options in cases {
            #expect(String(decoding: JSONBody.encode(options), as: UTF8.self) == String(decoding: Self.foundation(options), as: UTF8.self))
        }
    }

    @Test func eventPayloadsAreTheEncodersBytes() {
        var payloads = AccountEvent.Kind.allCases.flatMap { WebhookReadmeTests.samples($0) }.map(\.payload)
        var full = AccountEvent.Payload(userId: "AQID")
        (full.credentialId, full.sessionId, full.appleUserId, full.method) = ("CQ", "AgI", "001.apple", "passkey")
        (full.reason, full.backupEligible, full.previousUserId, full.previousAppleUserId) = ("logout", false, "BAU", "000.old")
        (full.changes, full.remaining) = (["displayName", "email"], 3)
        (full.issuer, full.subject, full.parentSessionId) = ("https://accounts.google.com", "1234", "AwM")
        payloads.append(full)
        for payload in payloads {
            #expect(String(decoding: JSONBody.encode(payload), as: UTF8.self) == String(decoding: Self.foundation(payload), as: UTF8.self))
        }
    }

    @Test func timestampsAreTheEncodersSeconds() {
        for seconds in [0, 0.999, -0.001, -1, 1_700_000_000.5, 4_102_444_799.9999, 951_782_400] as [Double] {
            let date = Date(timeIntervalSince1970: seconds)
            let encoded = String(decoding: Self.foundation([date]), as: UTF8.self)
            #expect(encoded == "[\"\(RFC3339Timestamp.seconds(date))\"]", "\(seconds)")
        }
    }
}
