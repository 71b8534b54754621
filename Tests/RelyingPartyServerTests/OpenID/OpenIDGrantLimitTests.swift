import ConfigurationFile
import ConfigurationReading
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing

/// `oidc.maximumGrantsPerClient`: 150 sign-ins of one account to one client leave the newest 20 grants (the default),
/// the oldest revoked with their refresh tokens; another client's grants are counted apart.
@Suite struct OpenIDGrantLimitTests {
    func grants(_ provider: OpenIDProviderTests, client: String) throws -> [OAuthGrantRecord] {
        try provider.fixture.store.transaction { transaction throws(StorageError) in
            try transaction.oauthGrants(userID: provider.account.userID, clientID: client)
        }
    }

    @Test func oneHundredFiftyLoginsKeepTheNewestTwenty() throws {
        let provider = try OpenIDProviderTests()
        var refreshTokens: [String] = []
        for _ in 0..<150 {
            let reply = try provider.exchange(try provider.code())
            refreshTokens.append(try #require(reply.object["refresh_token"] as? String, "\(reply.text)"))
            provider.fixture.clock.advance(by: 1)
        }
        #expect(try grants(provider, client: "ios").count == 20)
        #expect(try provider.refresh(refreshTokens[0]).errorCode == "invalid_grant", "the oldest is revoked")
        #expect(try provider.refresh(refreshTokens[129]).errorCode == "invalid_grant", "the 130th of 150 is revoked")
        #expect(try provider.refresh(refreshTokens[130]).status == 200, "the 131st is kept")
        #expect(try provider.refresh(refreshTokens[149]).status == 200, "the newest is kept")
        #expect(try grants(provider, client: "ios").count == 20, "a refresh makes no grant")
    }

    @Test func theCapIsConfigurableAndPerClient() throws {
        let configuration = OpenIDProviderTests.configuration.replacingOccurrences(
            of: #""oidc": {"#,
            with: #""oidc": {"maximumGrantsPerClient": 3, "#
        )
        let provider = try OpenIDProviderTests(configuration: configuration)
        let basic = [("Authorization", "Basic " + Data("web:\(OpenIDProviderTests.secret)".utf8).base64EncodedString())]
        for _ in 0..<5 {
            let code = try provider.code(client: "web", redirect: "https://web.example/callback", scope: "openid email")
            let reply = try provider.token(
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://web.example/callback"),
                    ("code_verifier", OpenIDProviderTests.verifier),
                ],
                headers: basic
            )
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try provider.exchange(try provider.code()).status == 200)
        }
        #expect(try grants(provider, client: "ios").count == 3)
        #expect(try grants(provider, client: "web").count == 3)
        #expect(throws: ConfigurationError.self) {
            _ = try ServerConfiguration(json: Data(#"{"oidc": {"maximumGrantsPerClient": 0}}"#.utf8))
        }
    }
}
