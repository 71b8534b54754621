import AppleSignIn
import CryptoCore
import Foundation
import Testing

/// Each rule of `IdentityTokenVerifier`: a valid token passes, and a token breaking only that rule fails with its code.
@Suite struct IdentityTokenVerifierTests {
    let issuer = TestIssuer.shared
    let nonce = NonceExpectation.raw(TestIssuer.rawNonce)

    private func verify(
        _ token: String,
        audiences: [String] = [TestIssuer.bundleID, TestIssuer.servicesID],
        at time: Date = TestIssuer.now,
        nonce: NonceExpectation? = nil
    ) throws -> AppleIdentityToken {
        try TestIssuer.verifier(audiences: audiences, at: time).verify(token, keys: try issuer.keySet(), nonce: nonce ?? self.nonce)
    }

    /// The error code of verifying `token`, or nil when it verifies.
    private func failure(
        _ token: String,
        audiences: [String] = [TestIssuer.bundleID, TestIssuer.servicesID],
        at time: Date = TestIssuer.now,
        nonce: NonceExpectation? = nil
    ) throws -> AppleSignInError.Code? {
        do {
            _ = try verify(token, audiences: audiences, at: time, nonce: nonce)
            return nil
        } catch let error as AppleSignInError {
            return error.code
        }
    }

    @Test func validTokenForABundleIDVerifies() throws {
        let claims = try verify(try issuer.token())
        #expect(claims.issuer == "https://appleid.apple.com")
        #expect(claims.subject == "001234.0123456789abcdef0123456789abcdef.0001")
        #expect(claims.audiences == [TestIssuer.bundleID])
        #expect(claims.expiresAt == TestIssuer.now.addingTimeInterval(600))
        #expect(claims.issuedAt == TestIssuer.now)
        #expect(claims.nonce == TestIssuer.hashedNonce(TestIssuer.rawNonce))
        #expect(claims.nonceSupported == true)
        #expect(claims.email == "user@privaterelay.appleid.com")
        #expect(claims.emailVerified == true)
        #expect(claims.isPrivateEmail == true)
        #expect(claims.realUserStatus == .likelyReal)
        #expect(claims.authenticationTime == TestIssuer.now)
        #expect(claims.codeHash == "q5kKwHk8aR4x0zF6V1nK7g")
        #expect(claims.transferSubject == nil)
    }

    @Test func validTokenForAServicesIDVerifies() throws {
        let token = try issuer.token { $0["aud"] = TestIssuer.servicesID }
        #expect(try verify(token, audiences: [TestIssuer.servicesID]).audiences == [TestIssuer.servicesID])
        #expect(try failure(token, audiences: [TestIssuer.bundleID]) == .wrongAudience)
    }

    @Test func tokenSignedWithTheSecondKeyOfTheSetVerifies() throws {
        let token = try issuer.token(header: ["kid": TestIssuer.secondaryKeyID, "alg": "RS256"], key: issuer.secondary)
        #expect(try failure(token) == nil)
    }

    @Test func optionalClaimsAreDecoded() throws {
        let token = try issuer.token {
            $0["transfer_sub"] = "000999.transferred.0001"
            $0["real_user_status"] = 0
            $0["email"] = nil
            $0["email_verified"] = nil
            $0["is_private_email"] = nil
        }
        let claims = try verify(token)
        #expect(claims.transferSubject == "000999.transferred.0001")
        #expect(claims.realUserStatus == .unsupported)
        #expect(claims.email == nil)
        #expect(claims.emailVerified == nil)
        #expect(claims.isPrivateEmail == nil)
    }

    @Test func wrongIssuerIsRefused() throws {
        #expect(try failure(try issuer.token { $0["iss"] = "https://appleid.apple.com.evil.example" }) == .wrongIssuer)
        #expect(try failure(try issuer.token { $0["iss"] = "https://accounts.google.com" }) == .wrongIssuer)
        #expect(try failure(try issuer.token { $0["iss"] = "" }) == .wrongIssuer)
    }

    @Test func issuersAreConfigurable() throws {
        let token = try issuer.token { $0["iss"] = "https://issuer.example" }
        let verifier = IdentityTokenVerifier(issuers: ["https://issuer.example"], audiences: [TestIssuer.bundleID], time: FixedTime(TestIssuer.now))
        #expect(try verifier.verify(token, keys: try issuer.keySet(), nonce: nonce).issuer == "https://issuer.example")
    }

    @Test func wrongAudienceIsRefused() throws {
        #expect(try failure(try issuer.token { $0["aud"] = "com.example.other" }) == .wrongAudience)
        #expect(try failure(try issuer.token(), audiences: []) == .wrongAudience)
    }

    /// An array aud verifies when at least one member is an accepted client ID.
    @Test func arrayAudienceNeedsOneAcceptedMember() throws {
        #expect(try failure(try issuer.token { $0["aud"] = ["com.example.other", TestIssuer.bundleID] }) == nil)
        #expect(try failure(try issuer.token { $0["aud"] = ["com.example.other", "com.example.third"] }) == .wrongAudience)
        #expect(try failure(try issuer.token { $0["aud"] = [String]() }) == .wrongAudience)
    }

    @Test func expiredTokenIsRefusedBeyondTheLeeway() throws {
        let token = try issuer.token()
        #expect(try failure(token, at: TestIssuer.now.addingTimeInterval(600 + 59)) == nil)
        #expect(try failure(token, at: TestIssuer.now.addingTimeInterval(600 + 60)) == .expired)
        #expect(try failure(token, at: TestIssuer.now.addingTimeInterval(86_400)) == .expired)
    }

    /// Issue 15: a token whose `exp` is more than a day after `iat` was accepted (until it expired).
    @Test func aTokenLivingMoreThanADayIsRefused() throws {
        let now = Int(TestIssuer.now.timeIntervalSince1970)
        #expect(try failure(try issuer.token { $0["exp"] = now + 86_400 }) == nil, "Apple's own: exactly one day")
        #expect(try failure(try issuer.token { $0["exp"] = now + 86_401 }) == .lifetimeTooLong)
        #expect(try failure(try issuer.token { $0["exp"] = now + 10 * 365 * 86_400 }) == .lifetimeTooLong)
    }

    @Test func tokenIssuedInTheFutureIsRefusedBeyondTheLeeway() throws {
        let token = try issuer.token()
        #expect(try failure(token, at: TestIssuer.now.addingTimeInterval(-60)) == nil)
        #expect(try failure(token, at: TestIssuer.now.addingTimeInterval(-61)) == .issuedInFuture)
    }

    @Test func alteredSignatureIsRefused() throws {
        let flipped = TestIssuer.editParts(try issuer.token()) { parts in
            var signature = Base64URL.decode(parts[2]) ?? []
            signature[signature.count / 2] ^= 0x01
            parts[2] = Base64URL.encode(signature)
        }
        #expect(try failure(flipped) == .invalidSignature)
        let truncated = TestIssuer.editParts(try issuer.token()) { parts in
            parts[2] = Base64URL.encode(Array((Base64URL.decode(parts[2]) ?? []).dropLast()))
        }
        #expect(try failure(truncated) == .invalidSignature)
    }

    @Test func alteredPayloadIsRefused() throws {
        let original = try issuer.token()
        let forged = try issuer.token { $0["sub"] = "000001.attacker.0001" }
        let spliced = TestIssuer.editParts(original) { parts in parts[1] = forged.split(separator: ".")[1].description }
        #expect(try failure(spliced) == .invalidSignature)
    }

    @Test func signatureByAKeyOutsideTheSetIsRefused() throws {
        #expect(try failure(try issuer.token(key: issuer.outsider)) == .invalidSignature)
        #expect(try failure(try issuer.token(key: issuer.secondary)) == .invalidSignature)
    }

    @Test func unknownOrMissingKeyIDIsRefused() throws {
        #expect(try failure(try issuer.token(header: ["kid": "NOTINJWKS", "alg": "RS256"])) == .unknownKey)
        #expect(try failure(try issuer.token(header: ["alg": "RS256"])) == .unknownKey)
        #expect(try failure(try issuer.token(header: ["kid": "", "alg": "RS256"])) == .unknownKey)
    }

    /// `alg: none` with an empty signature (RFC 7519 §6 unsecured JWT) is refused, in any capitalisation.
    @Test(arguments: ["none", "None", "NONE"])
    func unsecuredTokenIsRefused(algorithm: String) throws {
        let header = Base64URL.encode(try TestIssuer.json(["kid": TestIssuer.primaryKeyID, "alg": algorithm]))
        let payload = Base64URL.encode(try TestIssuer.json(TestIssuer.identityClaims()))
        #expect(try failure("\(header).\(payload).") == .unsupportedAlgorithm)
        #expect(try failure("\(header).\(payload).", nonce: .optional) == .unsupportedAlgorithm)
    }

    /// HS256 keyed with the RSA public key (the algorithm-confusion attack): refused from the header alone, whatever
    /// the MAC, before any key is looked up.
    @Test func hmacTokenIsRefusedBeforeTheSignatureIsChecked() throws {
        let header = Base64URL.encode(try TestIssuer.json(["kid": TestIssuer.primaryKeyID, "alg": "HS256", "typ": "JWT"]))
        let payload = Base64URL.encode(try TestIssuer.json(TestIssuer.identityClaims()))
        let garbage = Base64URL.encode(DigestAlgorithm.sha256.hash(try issuer.jwksJSON()))
        #expect(try failure("\(header).\(payload).\(garbage)") == .unsupportedAlgorithm)
        let unknownKeyHeader = Base64URL.encode(try TestIssuer.json(["kid": "NOTINJWKS", "alg": "HS256"]))
        #expect(try failure("\(unknownKeyHeader).\(payload).\(garbage)") == .unsupportedAlgorithm)
    }

    /// Every algorithm but RS256 is refused, even when the RS256 signature itself would verify.
    @Test(arguments: ["HS256", "HS384", "HS512", "RS384", "RS512", "PS256", "ES256", "EdDSA", "rs256", "RS256 ", ""])
    func otherAlgorithmsAreRefused(algorithm: String) throws {
        let token = try issuer.token(header: ["kid": TestIssuer.primaryKeyID, "alg": algorithm])
        #expect(try failure(token) == .unsupportedAlgorithm)
    }

    @Test func missingNonceIsRefused() throws {
        #expect(try failure(try issuer.token { $0["nonce"] = nil }) == .missingNonce)
        #expect(
            try failure(
                try issuer.token {
                    $0["nonce"] = nil
                    $0["nonce_supported"] = nil
                }
            ) == .missingNonce
        )
    }

    @Test func nonceOfAnotherRawValueIsRefused() throws {
        let token = try issuer.token()
        #expect(try failure(token, nonce: .raw("another-raw-nonce")) == .nonceMismatch)
        #expect(try failure(token, nonce: .raw("")) == .nonceMismatch)
        #expect(try failure(try issuer.token { $0["nonce"] = TestIssuer.rawNonce }) == .nonceMismatch)
        #expect(
            try failure(try issuer.token { $0["nonce"] = TestIssuer.hashedNonce(TestIssuer.rawNonce).uppercased() }) == .nonceMismatch
        )
        #expect(try failure(try issuer.token { $0["nonce"] = "" }) == .nonceMismatch)
    }

    /// A platform that cannot set a nonce says `nonce_supported: false`; Apple's guidance is then to treat the nonce
    /// as optional, so such a token without a nonce is accepted even when a raw nonce is expected.
    @Test(arguments: ["false", #""false""#])
    func tokenFromAPlatformWithoutNonceSupportIsAccepted(nonceSupported: String) throws {
        let value = try TestIssuer.fragment(nonceSupported)
        let token = try issuer.token {
            $0["nonce"] = nil
            $0["nonce_supported"] = value
        }
        let claims = try verify(token)
        #expect(claims.nonce == nil)
        #expect(claims.nonceSupported == false)
    }

    /// With `nonce_supported: false`, a nonce that is present is still checked.
    @Test func presentNonceIsCheckedEvenWithoutNonceSupport() throws {
        let token = try issuer.token {
            $0["nonce"] = TestIssuer.hashedNonce("another-raw-nonce")
            $0["nonce_supported"] = false
        }
        #expect(try failure(token) == .nonceMismatch)
    }

    @Test func optionalNonceAcceptsAnyNonceOrNone() throws {
        #expect(try failure(try issuer.token { $0["nonce"] = nil }, nonce: .optional) == nil)
        #expect(try failure(try issuer.token { $0["nonce"] = "whatever" }, nonce: .optional) == nil)
    }

    @Test(arguments: [("true", true), (#""true""#, true), ("false", false), (#""false""#, false)])
    func emailFlagsAcceptBooleansAndStrings(json: String, expected: Bool) throws {
        let value = try TestIssuer.fragment(json)
        let claims = try verify(
            try issuer.token {
                $0["email_verified"] = value
                $0["is_private_email"] = value
            }
        )
        #expect(claims.emailVerified == expected)
        #expect(claims.isPrivateEmail == expected)
    }

    @Test(arguments: [#""yes""#, #""TRUE""#, #""1""#, "1", "0", "[true]", "{}"])
    func otherEmailFlagFormsAreMalformed(json: String) throws {
        let value = try TestIssuer.fragment(json)
        #expect(try failure(try issuer.token { $0["email_verified"] = value }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["is_private_email"] = value }) == .appleTokenMalformed)
    }

    @Test func missingSubjectIsRefused() throws {
        #expect(try failure(try issuer.token { $0["sub"] = nil }) == .missingSubject)
        #expect(try failure(try issuer.token { $0["sub"] = "" }) == .missingSubject)
    }

    @Test func claimsOfTheWrongTypeAreMalformed() throws {
        #expect(try failure(try issuer.token { $0["iss"] = nil }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["aud"] = nil }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["exp"] = nil }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["iat"] = nil }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["exp"] = "1767226200" }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["aud"] = 7 }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["sub"] = 1234 }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["nonce"] = 1234 }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["real_user_status"] = 3 }) == .appleTokenMalformed)
        #expect(try failure(try issuer.token { $0["real_user_status"] = "2" }) == .appleTokenMalformed)
    }

    /// The rules run in order: the algorithm before the key, the signature before any claim.
    @Test func rulesRunInOrder() throws {
        #expect(try failure(try issuer.token(header: ["kid": "NOTINJWKS", "alg": "RS384"])) == .unsupportedAlgorithm)
        let expiredByOutsider = try issuer.token(editing: { $0["exp"] = 0 }, key: issuer.outsider)
        #expect(try failure(expiredByOutsider) == .invalidSignature)
        #expect(
            try failure(
                try issuer.token {
                    $0["iss"] = "https://evil.example"
                    $0["aud"] = "com.example.other"
                }
            ) == .wrongIssuer
        )
        #expect(
            try failure(
                try issuer.token {
                    $0["aud"] = "com.example.other"
                    $0["exp"] = 0
                }
            ) == .wrongAudience
        )
        #expect(
            try failure(
                try issuer.token {
                    $0["sub"] = nil
                    $0["nonce"] = nil
                }
            ) == .missingSubject
        )
    }
}
