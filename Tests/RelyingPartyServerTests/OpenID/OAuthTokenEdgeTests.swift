import ConfigurationReading
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 12: the token endpoint's errors carry RFC 6749 §5.2's `error_description`; a refresh token that comes
/// back within `oidc.refreshTokenReuseGraceSeconds` of its rotation gets a fresh pair without revoking the grant, and
/// after it (or with no grace) its return revokes the grant; a disabled account's grants end and refresh nothing.
struct OAuthTokenEdgeTests {
    static func provider(grace: Int?) throws -> OpenIDProviderTests {
        let member = grace.map { #""refreshTokenReuseGraceSeconds": \#($0), "clients""# } ?? #""clients""#
        return try OpenIDProviderTests(configuration: OpenIDProviderTests.configuration.replacingOccurrences(of: #""clients""#, with: member))
    }

    @Test func everyTokenEndpointErrorCarriesErrorAndErrorDescription() throws {
        let provider = try Self.provider(grace: nil)
        for reply in [
            try provider.refresh("no-such-token"),
            try provider.token([("grant_type", "password"), ("client_id", "ios")]),
            try provider.token([("grant_type", "refresh_token"), ("client_id", "ios")]),
            try provider.token([("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "nobody")]),
        ] {
            let error = try #require(reply.errorCode, "\(reply.text)")
            #expect(["invalid_grant", "unsupported_grant_type", "invalid_request", "invalid_client"].contains(error))
            let description = try #require(reply.object["error_description"] as? String, "\(reply.text)")
            #expect(description == reply.object["message"] as? String && !description.isEmpty)
        }
        let revoked = try provider.fixture.client.send(
            "POST",
            "/oauth/revoke",
            json: Array("token=x&client_id=nobody".utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")]
        )
        #expect(revoked.errorCode == "invalid_client" && revoked.object["error_description"] is String, "\(revoked.text)")
    }

    @Test func withoutAGraceTheJustRotatedTokenComingBackRevokesTheGrant() throws {
        let provider = try Self.provider(grace: nil)
        let first = try provider.exchange(try provider.code()).object
        let refreshToken = try #require(first["refresh_token"] as? String)
        let rotated = try #require(try provider.refresh(refreshToken).object["refresh_token"] as? String)
        #expect(try provider.refresh(refreshToken).errorCode == "invalid_grant", "a retry at once is a reuse")
        #expect(try provider.refresh(rotated).errorCode == "invalid_grant", "the family is revoked")
    }

    @Test func withinTheGraceARetryGetsAFreshPairAndTheGrantLives() throws {
        let provider = try Self.provider(grace: 10)
        let first = try provider.exchange(try provider.code()).object
        let refreshToken = try #require(first["refresh_token"] as? String)
        let rotated = try #require(try provider.refresh(refreshToken).object["refresh_token"] as? String)
        provider.fixture.clock.advance(by: 9)
        let retry = try provider.refresh(refreshToken)
        #expect(retry.status == 200, "\(retry.text)")
        let retried = try #require(retry.object["refresh_token"] as? String)
        #expect(retried != rotated && retry.object["access_token"] is String)
        // Both successors work, each once.
        #expect(try provider.refresh(rotated).status == 200)
        #expect(try provider.refresh(retried).status == 200)
        // The grace is measured from the first rotation, never extended: at 10 s the old token is a reuse.
        provider.fixture.clock.advance(by: 1)
        #expect(try provider.refresh(refreshToken).errorCode == "invalid_grant")
        #expect(try provider.refresh(try #require(retry.object["refresh_token"] as? String)).errorCode == "invalid_grant", "revoked")
    }

    @Test func theGraceIsBounded() throws {
        for bad in ["-1", "61", "\"5\""] {
            let json = OpenIDProviderTests.configuration.replacingOccurrences(
                of: #""clients""#,
                with: #""refreshTokenReuseGraceSeconds": \#(bad), "clients""#
            )
            #expect(throws: ConfigurationError.self) { try TestServerFactory.configuration(json) }
        }
    }

    @Test func disablingTheAccountEndsItsGrantsAndCodes() throws {
        let provider = try Self.provider(grace: 10)
        let tokens = try provider.exchange(try provider.code()).object
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let accessToken = try #require(tokens["access_token"] as? String)
        let pendingCode = try provider.code()
        let admin = provider.fixture.server.controllers.admin.service
        _ = try admin.updateUser(id: Base64URL.encode(provider.account.userID), AdminUserChange(disabled: true))
        #expect(try provider.refresh(refreshToken).errorCode == "invalid_grant")
        #expect(try provider.exchange(pendingCode).errorCode == "invalid_grant")
        #expect(try provider.userInfo(accessToken).status == 401)
    }
}
