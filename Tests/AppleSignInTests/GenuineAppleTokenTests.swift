import AppleSignIn
import CryptoCore
import Foundation
import Testing

/// Genuine Apple tokens (see `GenuineAppleTokens` for provenance) verify at their issue time, and fail each rule
/// they break at another time, for another app, or when altered.
@Suite struct GenuineAppleTokenTests {
    private func keys() throws -> JSONWebKeySet {
        try JSONWebKeySet(json: Array(GenuineAppleTokens.jwks.utf8))
    }

    private func verifier(at time: Date, audience: String = GenuineAppleTokens.audience) -> IdentityTokenVerifier {
        IdentityTokenVerifier(audiences: [audience], time: FixedTime(time))
    }

    private func failure(
        _ token: String,
        at time: Date,
        audience: String = GenuineAppleTokens.audience,
        nonce: NonceExpectation = .optional
    ) throws -> AppleSignInError.Code? {
        do {
            _ = try verifier(at: time, audience: audience).verify(token, keys: try keys(), nonce: nonce)
            return nil
        } catch let error as AppleSignInError {
            return error.code
        }
    }

    @Test func applesJWKSIsParsed() throws {
        let keys = try keys()
        #expect(keys.keys.map(\.keyID) == ["eXaunmL", "YuyXoY"])
        #expect(keys.keys.allSatisfy { $0.publicKey.bits == 2048 })
    }

    @Test func identityTokenWithStringEmailFlagsVerifies() throws {
        let claims = try verifier(at: GenuineAppleTokens.identityTokenWithEmailIssuedAt.addingTimeInterval(30))
            .verify(GenuineAppleTokens.identityTokenWithEmail, keys: try keys(), nonce: .optional)
        #expect(claims.subject == GenuineAppleTokens.subject)
        #expect(claims.audiences == [GenuineAppleTokens.audience])
        #expect(claims.email == "zdfu7jtuus@privaterelay.appleid.com")
        #expect(claims.emailVerified == true)
        #expect(claims.isPrivateEmail == true)
        #expect(claims.nonceSupported == true)
        #expect(claims.nonce == nil)
        #expect(claims.realUserStatus == nil)
        #expect(claims.codeHash == "M5UCunFu1J67auQ6-q-kOw")
        #expect(claims.authenticationTime == GenuineAppleTokens.identityTokenWithEmailIssuedAt)
        #expect(claims.expiresAt == GenuineAppleTokens.identityTokenWithEmailIssuedAt.addingTimeInterval(86_400))
    }

    @Test func identityTokenWithoutEmailVerifies() throws {
        let claims = try verifier(at: GenuineAppleTokens.identityTokenWithoutEmailIssuedAt)
            .verify(GenuineAppleTokens.identityTokenWithoutEmail, keys: try keys(), nonce: .optional)
        #expect(claims.subject == GenuineAppleTokens.subject)
        #expect(claims.email == nil)
        #expect(claims.emailVerified == nil)
    }

    @Test func genuineTokensFailTheRulesTheyBreak() throws {
        let token = GenuineAppleTokens.identityTokenWithEmail
        let issued = GenuineAppleTokens.identityTokenWithEmailIssuedAt
        // No nonce, and nonce_supported true: a relying party expecting one refuses the token.
        #expect(try failure(token, at: issued, nonce: .raw("any raw nonce")) == .missingNonce)
        #expect(try failure(token, at: issued, audience: "com.example.other") == .wrongAudience)
        #expect(try failure(token, at: issued.addingTimeInterval(86_400 + 60)) == .expired)
        #expect(try failure(token, at: Date(timeIntervalSince1970: 1_767_225_600)) == .expired)
        #expect(try failure(token, at: issued.addingTimeInterval(-61)) == .issuedInFuture)
        let otherIssuer = IdentityTokenVerifier(
            issuers: ["https://account.apple.com"],
            audiences: [GenuineAppleTokens.audience],
            time: FixedTime(issued)
        )
        #expect(throws: AppleSignInError.self) { try otherIssuer.verify(token, keys: try keys(), nonce: .optional) }
    }

    @Test func alteredGenuineTokensAreRefused() throws {
        let issued = GenuineAppleTokens.identityTokenWithEmailIssuedAt
        // The header names the other Apple key: the signature does not verify with it.
        let otherKey = TestIssuer.editParts(GenuineAppleTokens.identityTokenWithEmail) { parts in
            parts[0] = Base64URL.encode(Array(#"{"kid":"eXaunmL","alg":"RS256"}"#.utf8))
        }
        #expect(try failure(otherKey, at: issued) == .invalidSignature)
        // The payload of the other genuine token under this token's signature.
        let spliced = TestIssuer.editParts(GenuineAppleTokens.identityTokenWithEmail) { parts in
            parts[1] = String(GenuineAppleTokens.identityTokenWithoutEmail.split(separator: ".")[1])
        }
        #expect(try failure(spliced, at: GenuineAppleTokens.identityTokenWithoutEmailIssuedAt) == .invalidSignature)
        // The key removed from the set.
        let onlyOtherKey = try JSONWebKeySet(keys: try keys().keys.filter { $0.keyID != "YuyXoY" })
        #expect(throws: AppleSignInError.self) {
            try verifier(at: issued).verify(GenuineAppleTokens.identityTokenWithEmail, keys: onlyOtherKey, nonce: .optional)
        }
    }

    @Test func genuineNotificationVerifies() throws {
        let body = Array(#"{"payload":"\#(GenuineAppleTokens.emailDisabledNotification)"}"#.utf8)
        let notification = try ServerNotification(
            body: body,
            verifier: verifier(at: GenuineAppleTokens.emailDisabledNotificationIssuedAt),
            keys: try keys()
        )
        #expect(
            notification.event
                == .emailDisabled(
                    subject: GenuineAppleTokens.subject,
                    email: "zdfu7jtuus@privaterelay.appleid.com",
                    isPrivateEmail: true,
                    time: Date(timeIntervalSince1970: 1_630_085_403.648)
                )
        )
        #expect(notification.jwtID == "B94OdD03pFsaYaN-Ftv7mA")
        #expect(notification.audiences == [GenuineAppleTokens.audience])
        #expect(notification.issuedAt == GenuineAppleTokens.emailDisabledNotificationIssuedAt)
    }

    @Test func genuineNotificationFailsTheRulesItBreaks() throws {
        let late = verifier(at: GenuineAppleTokens.emailDisabledNotificationIssuedAt.addingTimeInterval(86_400 + 60))
        #expect(throws: AppleSignInError(.expired, "token expired at 2021-08-28T17:30:12Z")) {
            try ServerNotification(payload: GenuineAppleTokens.emailDisabledNotification, verifier: late, keys: try keys())
        }
        let otherApp = verifier(at: GenuineAppleTokens.emailDisabledNotificationIssuedAt, audience: "com.example.other")
        #expect(throws: AppleSignInError(.wrongAudience, "token aud is not an accepted client ID")) {
            try ServerNotification(payload: GenuineAppleTokens.emailDisabledNotification, verifier: otherApp, keys: try keys())
        }
        // An identity token is not a notification: it has no events claim.
        let issued = GenuineAppleTokens.identityTokenWithEmailIssuedAt
        #expect(throws: AppleSignInError.self) {
            try ServerNotification(payload: GenuineAppleTokens.identityTokenWithEmail, verifier: verifier(at: issued), keys: try keys())
        }
    }
}
