import AppleSignIn
import CryptoCore
import Foundation
import Testing

/// The client secret is an ES256 JWT with exactly Apple's header and claims, verifiable with the key's public half.
@Suite struct ClientSecretTests {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static let clientID = "com.example.passkeyd.web"
    static let now = Date(timeIntervalSince1970: 1_767_225_600.75)

    private func decodedObject(_ part: Substring) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(String(part)))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func headerAndClaimsAreApplesFieldByField() throws {
        let key = try PrivateKey.generateEC(.p256)
        let secret = try ClientSecret(privateKey: key, keyID: Self.keyID, teamID: Self.teamID, clientID: Self.clientID, time: FixedTime(Self.now))
        let parts = secret.token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try decodedObject(parts[0])
        #expect(header.count == 2)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == Self.keyID)
        let claims = try decodedObject(parts[1])
        #expect(Set(claims.keys) == ["iss", "iat", "exp", "aud", "sub"])
        #expect(claims["iss"] as? String == Self.teamID)
        #expect((claims["iat"] as? NSNumber)?.int64Value == 1_767_225_600)
        #expect((claims["exp"] as? NSNumber)?.int64Value == 1_767_225_900)
        #expect(claims["aud"] as? String == "https://appleid.apple.com")
        #expect(claims["sub"] as? String == Self.clientID)
        #expect(secret.issuedAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(secret.expiresAt == Date(timeIntervalSince1970: 1_767_225_900))
    }

    @Test func signatureIsRawAndVerifiesWithThePublicKey() throws {
        let key = try PrivateKey.generateEC(.p256)
        let secret = try ClientSecret(privateKey: key, keyID: Self.keyID, teamID: Self.teamID, clientID: Self.clientID, time: FixedTime(Self.now))
        let parts = secret.token.split(separator: ".", omittingEmptySubsequences: false)
        let raw = try #require(Base64URL.decode(String(parts[2])))
        #expect(raw.count == 64)
        let der = try #require(ECDSASignatureEncoding.derEncoded(raw: raw, curve: .p256))
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        #expect(try key.publicKey().verify(signature: der, message: signingInput, algorithm: .ecdsaSHA256))
        #expect(try !PrivateKey.generateEC(.p256).publicKey().verify(signature: der, message: signingInput, algorithm: .ecdsaSHA256))
    }

    @Test func p8PEMKeyIsAccepted() throws {
        let key = try PrivateKey.generateEC(.p256)
        let pem = try key.pem()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let secret = try ClientSecret(
            privateKeyPEM: pem,
            keyID: Self.keyID,
            teamID: Self.teamID,
            clientID: Self.clientID,
            lifetime: 3600,
            time: FixedTime(Self.now)
        )
        #expect(secret.expiresAt.timeIntervalSince(secret.issuedAt) == 3600)
        let parts = secret.token.split(separator: ".")
        let raw = try #require(Base64URL.decode(String(parts[2])))
        let der = try #require(ECDSASignatureEncoding.derEncoded(raw: raw, curve: .p256))
        #expect(try key.publicKey().verify(signature: der, message: Array("\(parts[0]).\(parts[1])".utf8), algorithm: .ecdsaSHA256))
    }

    @Test func lifetimeIsBoundedBySixMonths() throws {
        let key = try PrivateKey.generateEC(.p256)
        let longest = try ClientSecret(
            privateKey: key,
            keyID: Self.keyID,
            teamID: Self.teamID,
            clientID: Self.clientID,
            lifetime: ClientSecret.maximumLifetime,
            time: FixedTime(Self.now)
        )
        #expect(longest.expiresAt.timeIntervalSince(longest.issuedAt) == 15_777_000)
        for lifetime in [ClientSecret.maximumLifetime + 1, 0, -300, .nan, .infinity] {
            #expect(throws: AppleSignInError.self) {
                try ClientSecret(
                    privateKey: key,
                    keyID: Self.keyID,
                    teamID: Self.teamID,
                    clientID: Self.clientID,
                    lifetime: lifetime,
                    time: FixedTime(Self.now)
                )
            }
        }
    }

    @Test func emptyIdentifiersAreRefused() throws {
        let key = try PrivateKey.generateEC(.p256)
        for (keyID, teamID, clientID) in [("", Self.teamID, Self.clientID), (Self.keyID, "", Self.clientID), (Self.keyID, Self.teamID, "")] {
            do {
                _ = try ClientSecret(privateKey: key, keyID: keyID, teamID: teamID, clientID: clientID, time: FixedTime(Self.now))
                Issue.record("empty identifier accepted")
            } catch {
                #expect(error.code == .clientSecretInvalidParameter)
            }
        }
    }

    @Test func keysOtherThanP256AreRefused() throws {
        for key in [try PrivateKey.generateRSA(bits: 2048), try PrivateKey.generateEC(.p384), try PrivateKey.generateEdwards(.ed25519)] {
            do {
                _ = try ClientSecret(privateKey: key, keyID: Self.keyID, teamID: Self.teamID, clientID: Self.clientID, time: FixedTime(Self.now))
                Issue.record("a key other than P-256 was accepted")
            } catch {
                #expect(error.code == .clientSecretInvalidKey)
            }
        }
    }

    @Test func unreadablePEMIsRefused() {
        for pem in ["", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n", "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEH"] {
            #expect(throws: AppleSignInError(.clientSecretInvalidKey, "the .p8 key is not a readable PEM private key")) {
                try ClientSecret(privateKeyPEM: pem, keyID: Self.keyID, teamID: Self.teamID, clientID: Self.clientID, time: FixedTime(Self.now))
            }
        }
    }
}
