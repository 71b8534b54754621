import CryptoCore
import Foundation
import OpenIDConnect
import TestSupport
import Testing

/// Each rule of `IDTokenVerifier`: a valid token passes, and a token breaking only that rule fails with its code.
@Suite struct IDTokenVerifierTests {
    let provider = TestProvider.shared

    private func verify(
        _ token: String,
        issuer: IssuerIdentifier = .google,
        clientIDs: [String] = [TestProvider.webClientID, TestProvider.androidClientID, TestProvider.iosClientID],
        at time: Date = TestProvider.now,
        rawNonce: String = TestProvider.rawNonce
    ) throws -> IDTokenClaims {
        try TestProvider.verifier(issuer: issuer, clientIDs: clientIDs, at: time).verify(token, keys: try provider.keySet(), rawNonce: rawNonce)
    }

    /// The error code of verifying `token`, or nil when it verifies.
    private func failure(
        _ token: String,
        issuer: IssuerIdentifier = .google,
        clientIDs: [String] = [TestProvider.webClientID, TestProvider.androidClientID, TestProvider.iosClientID],
        at time: Date = TestProvider.now,
        rawNonce: String = TestProvider.rawNonce
    ) throws -> OpenIDConnectError.Code? {
        do {
            _ = try verify(token, issuer: issuer, clientIDs: clientIDs, at: time, rawNonce: rawNonce)
            return nil
        } catch let error as OpenIDConnectError {
            return error.code
        }
    }

    @Test func googleAndroidTokenVerifies() throws {
        let claims = try verify(try provider.token())
        #expect(claims.issuer == "https://accounts.google.com")
        #expect(claims.subject == TestProvider.subject)
        #expect(claims.audiences == [TestProvider.webClientID])
        #expect(claims.authorizedParty == TestProvider.androidClientID)
        #expect(claims.email == "person@example.com")
        #expect(claims.emailVerified == true)
        #expect(claims.expiresAt == TestProvider.now.addingTimeInterval(3600))
        #expect(claims.issuedAt == TestProvider.now)
        #expect(claims.nonce == TestProvider.hashedNonce(TestProvider.rawNonce))
    }

    @Test func es256TokenVerifies() throws {
        #expect(try verify(try provider.token(key: provider.ec)).subject == TestProvider.subject)
    }

    @Test func googleIssuerWithoutSchemeVerifies() throws {
        #expect(try verify(try provider.token { $0["iss"] = "accounts.google.com" }).issuer == "accounts.google.com")
    }

    @Test func emailVerifiedAsStringIsRead() throws {
        #expect(try verify(try provider.token { $0["email_verified"] = "true" }).emailVerified == true)
        #expect(try verify(try provider.token { $0["email_verified"] = "false" }).emailVerified == false)
        #expect(try verify(try provider.token { $0["email_verified"] = nil }).emailVerified == nil)
        #expect(try failure(try provider.token { $0["email_verified"] = "yes" }) == .malformed)
        #expect(try failure(try provider.token { $0["email_verified"] = 1 }) == .malformed)
    }

    @Test func notACompactJWSIsMalformed() throws {
        #expect(try failure("not.a") == .malformed)
        #expect(try failure(try provider.token() + ".extra.parts") == .malformed)
        #expect(try failure(String(repeating: "a", count: IDTokenVerifier.maximumTokenLength + 1)) == .malformed)
    }

    @Test func algNoneIsRefusedBeforeAnyKeyLookup() throws {
        let token = try TestProvider.token(header: ["alg": "none", "kid": "rsa-key-1"], claims: TestProvider.googleClaims(), signature: [])
        #expect(try failure(token) == .unsupportedAlgorithm)
    }

    @Test func hmacWithThePublicKeyIsRefused() throws {
        let header: [String: Any] = ["alg": "HS256", "kid": "rsa-key-1"]
        let input = Base64URL.encode(try JWSTestSigner.json(header)) + "." + Base64URL.encode(try JWSTestSigner.json(TestProvider.googleClaims()))
        let secret = try provider.rsa.publicKey.rsaComponents().modulus
        let mac = MessageAuthenticationKey(key: secret).authenticate(Array(input.utf8))
        #expect(try failure(input + "." + Base64URL.encode(mac)) == .unsupportedAlgorithm)
    }

    @Test func otherAlgorithmsAreRefused() throws {
        for alg in ["RS512", "PS256", "ES384", "EdDSA", "rs256"] {
            let token = try TestProvider.token(header: ["alg": alg, "kid": "rsa-key-1"], claims: TestProvider.googleClaims(), signature: [1])
            #expect(try failure(token) == .unsupportedAlgorithm)
        }
    }

    @Test func unknownOrMissingKidIsRefused() throws {
        let unknown = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: "not-in-set")
        #expect(try failure(try provider.token(key: unknown)) == .unknownKey)
        let noKid = try TestProvider.token(header: ["alg": "RS256"], claims: TestProvider.googleClaims(), signature: [1])
        #expect(try failure(noKid) == .unknownKey)
    }

    @Test func algThatDoesNotMatchTheKeyIsRefused() throws {
        // An RS256 header naming the EC key: the key's kty is not the one RS256 needs.
        let token = try TestProvider.token(header: ["alg": "RS256", "kid": "ec-key-1"], claims: TestProvider.googleClaims(), signature: [1])
        #expect(try failure(token) == .keyMismatch)
    }

    @Test func wrongSignatureIsRefused() throws {
        #expect(try failure(try provider.token(key: provider.outsider)) == .invalidSignature)
        // The claims changed after signing.
        let token = try provider.token()
        var parts = token.split(separator: ".").map(String.init)
        var claims = TestProvider.googleClaims()
        claims["sub"] = "someone-else"
        parts[1] = Base64URL.encode(try JWSTestSigner.json(claims))
        #expect(try failure(parts.joined(separator: ".")) == .invalidSignature)
    }

    @Test func wrongIssuerIsRefused() throws {
        #expect(try failure(try provider.token { $0["iss"] = "https://accounts.google.com/" }) == .wrongIssuer)
        #expect(try failure(try provider.token { $0["iss"] = "https://evil.example" }) == .wrongIssuer)
        #expect(try failure(try provider.token { $0["iss"] = 5 }) == .malformed)
        #expect(try failure(try provider.token { $0["iss"] = nil }) == .malformed)
    }

    @Test func audienceMustBeAConfiguredClientID() throws {
        #expect(try failure(try provider.token { $0["aud"] = "other.apps.googleusercontent.com" }) == .wrongAudience)
        #expect(try failure(try provider.token(), clientIDs: [TestProvider.androidClientID]) == .wrongAudience)
        // An additional untrusted audience (step 3).
        let extra = try provider.token { $0["aud"] = [TestProvider.webClientID, "untrusted"] }
        #expect(try failure(extra) == .wrongAudience)
        #expect(try failure(try provider.token { $0["aud"] = [] as [String] }) == .malformed)
        #expect(try failure(try provider.token { $0["aud"] = nil }) == .malformed)
    }

    @Test func severalAudiencesNeedAnAuthorizedParty() throws {
        let both = [TestProvider.webClientID, TestProvider.iosClientID]
        #expect(try verify(try provider.token { $0["aud"] = both }).audiences == both)
        #expect(
            try failure(
                try provider.token {
                    $0["aud"] = both
                    $0["azp"] = nil
                }
            ) == .missingAuthorizedParty
        )
    }

    @Test func authorizedPartyMustBeAConfiguredClientID() throws {
        #expect(try failure(try provider.token { $0["azp"] = "other.apps.googleusercontent.com" }) == .wrongAuthorizedParty)
        #expect(try verify(try provider.token { $0["azp"] = nil }).authorizedParty == nil)
    }

    @Test func expiredTokenIsRefusedAfterTheLeeway() throws {
        let token = try provider.token()
        #expect(try failure(token, at: TestProvider.now.addingTimeInterval(3600 + 59)) == nil)
        #expect(try failure(token, at: TestProvider.now.addingTimeInterval(3600 + 61)) == .expired)
    }

    @Test func tokenIssuedInTheFutureIsRefused() throws {
        let now = Int(TestProvider.now.timeIntervalSince1970)
        #expect(try failure(try provider.token { $0["iat"] = now + 59 }) == nil)
        #expect(
            try failure(
                try provider.token {
                    $0["iat"] = now + 120
                    $0["exp"] = now + 3600
                }
            ) == .issuedInFuture
        )
    }

    @Test func overlongLifetimeIsRefused() throws {
        let now = Int(TestProvider.now.timeIntervalSince1970)
        #expect(try failure(try provider.token { $0["exp"] = now + 86_401 }) == .lifetimeTooLong)
        #expect(try failure(try provider.token { $0["exp"] = "soon" }) == .malformed)
    }

    @Test func subjectMustBePresentAndBounded() throws {
        #expect(try failure(try provider.token { $0["sub"] = nil }) == .invalidSubject)
        #expect(try failure(try provider.token { $0["sub"] = "" }) == .invalidSubject)
        #expect(try failure(try provider.token { $0["sub"] = String(repeating: "1", count: 256) }) == .invalidSubject)
        #expect(try failure(try provider.token { $0["sub"] = String(repeating: "1", count: 255) }) == nil)
    }

    @Test func nonceMustBeTheHexSHA256OfTheRawNonce() throws {
        #expect(try failure(try provider.token { $0["nonce"] = nil }) == .missingNonce)
        #expect(try failure(try provider.token(), rawNonce: "another-raw-nonce") == .nonceMismatch)
        // The raw nonce itself, or the upper-case hex, is not accepted.
        #expect(try failure(try provider.token { $0["nonce"] = TestProvider.rawNonce }) == .nonceMismatch)
        #expect(try failure(try provider.token { $0["nonce"] = TestProvider.hashedNonce(TestProvider.rawNonce).uppercased() }) == .nonceMismatch)
    }

    @Test func duplicateClaimsAreMalformed() throws {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"rsa-key-1"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"sub":"a","sub":"b"}"#.utf8))
        let input = header + "." + claims
        let signature = try provider.rsa.sign(Array(input.utf8))
        #expect(try failure(input + "." + Base64URL.encode(signature)) == .malformed)
    }
}
