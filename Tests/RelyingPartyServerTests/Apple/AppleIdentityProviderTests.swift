import AppleSignIn
import FederatedIdentity
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Sign in with Apple as the first `IdentityProvider`: the common shape of a verified identity, with Apple's own claims
/// kept, typed and as signed.
@Suite("Sign in with Apple as an identity provider")
struct AppleIdentityProviderTests {
    @Test func aVerifiedIdentityIsKeyedByIssuerAndSubjectAndKeepsEveryClaim() throws {
        let fixture = try AppleFixture()
        let provider = AppleIdentityProvider(integration: try #require(fixture.server.apple))
        #expect(provider.capabilities == [.revocation, .notifications, .transfer, .codeExchange])
        let token = try fixture.identityToken(rawNonce: "provider-nonce") { $0["org.example.claim"] = "kept" }
        let identity = try provider.verify(token, rawNonce: "provider-nonce")
        #expect(identity.issuer == "https://appleid.apple.com")
        #expect(identity.subject == AppleTokenMinter.subject)
        #expect(identity.audiences == [AppleTokenMinter.bundleID])
        #expect(identity.email == AppleTokenMinter.email)
        #expect(identity.emailVerified == true)
        #expect(identity.claims.isPrivateEmail == true)
        #expect(identity.claims.realUserStatus == .likelyReal)
        #expect(identity.rawClaims["org.example.claim"] == .string("kept"))
        #expect(identity.rawClaims["real_user_status"] == .number(2))
        #expect(identity.rawClaims["sub"] == .string(AppleTokenMinter.subject))
    }

    @Test func aTokenThatFailsVerificationIsInvalidIdentityToken() throws {
        let fixture = try AppleFixture()
        let provider = AppleIdentityProvider(integration: try #require(fixture.server.apple))
        let token = try fixture.identityToken(rawNonce: "provider-nonce")
        do {
            _ = try provider.verify(token, rawNonce: "another nonce")
            Issue.record("a token for another nonce was verified")
        } catch {
            #expect(error.code == .invalidIdentityToken)
        }
    }

    @Test func payloadClaimsOfSomethingThatIsNotACompactJWSAreEmpty() {
        #expect(VerifiedIdentity<Int>.payloadClaims(of: "not a token").isEmpty)
        #expect(VerifiedIdentity<Int>.payloadClaims(of: "e30.WzFd.e30").isEmpty)
    }
}
